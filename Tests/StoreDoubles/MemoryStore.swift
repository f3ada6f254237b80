import ArborLocking
import ArborRecords
import ArborStorage
import Foundation

/// A store in memory, for the tests of the abstraction and of the daemon's services: it keeps what it is given, fails
/// writes while `failing` is set, and can do nothing a backend may add (the capabilities'
/// defaults).
package final class MemoryStore: StateStore {
  package struct Contents {
    package var journal: [JournalEntry] = []
    package var snapshots: [UInt64: [UInt8]] = [:]
    package var schema: String?
    package var failing: StoreError?
    package var transactions = 0
  }

  package let location = "memory"
  package let fsync: FsyncPolicy
  package var recordedSchema: String? { contents.withLock { $0.schema } }
  package let contents = LockedState(Contents())

  package init(fsync: FsyncPolicy = .always) { self.fsync = fsync }

  package func recover() throws(StoreError) -> StoreRecovery {
    let revision = contents.withLock { $0.journal.last?.revision ?? $0.snapshots.keys.max() }
    return StoreRecovery(record: nil, snapshotRevision: revision, replayed: 0)
  }

  package func recordSchema(_ schema: String) async throws(StoreError) { contents.withLock { $0.schema = schema } }

  package func appendNow(_ entries: [JournalEntry]) throws(StoreError) {
    let failure = contents.withLock { contents -> StoreError? in
      if let failing = contents.failing { return failing }
      contents.journal += entries
      contents.transactions += 1
      return nil
    }
    if let failure { throw failure }
  }

  package func probeWrite() throws(StoreError) {
    if let failing = contents.withLock({ $0.failing }) { throw failing }
  }

  package func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    contents.withLock { $0.snapshots[revision] = bytes }
  }

  package func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? { nil }

  package func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] {
    contents.withLock { Array($0.journal.filter { $0.revision > since }.prefix(limit)) }
  }

  package func journalRange() throws(StoreError) -> ClosedRange<UInt64>? {
    contents.withLock { contents in
      guard let first = contents.journal.first?.revision, let last = contents.journal.last?.revision else { return nil }
      return first...last
    }
  }

  package func snapshotRevisions() throws(StoreError) -> [UInt64] { contents.withLock { $0.snapshots.keys.sorted() } }
  package func checkpoint() throws(StoreError) {}
  package var storedBytes: Int { 0 }
  package func close() async {}
}
