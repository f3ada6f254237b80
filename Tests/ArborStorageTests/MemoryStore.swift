import Arbor
import ArborLocking
import ArborStorage
import Foundation

/// A store in memory, for the abstraction's own tests: it keeps what it is given, fails
/// writes while `failing` is set, and can do nothing a backend may add (the capabilities'
/// defaults).
final class MemoryStore: StateStore {
  struct Contents {
    var journal: [JournalEntry] = []
    var snapshots: [UInt64: [UInt8]] = [:]
    var schema: String?
    var failing: StoreError?
    var transactions = 0
  }

  let location = "memory"
  let fsync: FsyncPolicy
  var recordedSchema: String? { contents.withLock { $0.schema } }
  let contents = LockedState(Contents())

  init(fsync: FsyncPolicy = .always) { self.fsync = fsync }

  func recover() throws(StoreError) -> StoreRecovery {
    let revision = contents.withLock { $0.journal.last?.revision ?? $0.snapshots.keys.max() }
    return StoreRecovery(record: nil, snapshotRevision: revision, replayed: 0)
  }

  func recordSchema(_ schema: String) async throws(StoreError) { contents.withLock { $0.schema = schema } }

  func appendNow(_ entries: [JournalEntry]) throws(StoreError) {
    let failure = contents.withLock { contents -> StoreError? in
      if let failing = contents.failing { return failing }
      contents.journal += entries
      contents.transactions += 1
      return nil
    }
    if let failure { throw failure }
  }

  func probeWrite() throws(StoreError) {
    if let failing = contents.withLock({ $0.failing }) { throw failing }
  }

  func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    contents.withLock { $0.snapshots[revision] = bytes }
  }

  func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? { nil }

  func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] {
    contents.withLock { Array($0.journal.filter { $0.revision > since }.prefix(limit)) }
  }

  func journalRange() throws(StoreError) -> ClosedRange<UInt64>? {
    contents.withLock { contents in
      guard let first = contents.journal.first?.revision, let last = contents.journal.last?.revision else { return nil }
      return first...last
    }
  }

  func snapshotRevisions() throws(StoreError) -> [UInt64] { contents.withLock { $0.snapshots.keys.sorted() } }
  func checkpoint() throws(StoreError) {}
  var storedBytes: Int { 0 }
  func close() async {}
}
