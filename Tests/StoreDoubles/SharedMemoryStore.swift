import ArborLocking
import ArborRecords
import ArborStorage
import Foundation

/// A memory store that says it is shared by several daemons (``StoreLeadership``), as the
/// PostgreSQL store does, and nothing else.
package final class SharedMemoryStore: StoreLeadership {
  package let base = MemoryStore()

  package init() {}
  /// The term this store leads in; 0 while a standby.
  package let leading = LockedState<Int64>(0)

  package var leadership: (any StoreLeadership)? { self }
  package var term: Int64 { leading.withLock { $0 } }
  package var isLeading: Bool { term > 0 }
  package let holder = "memory leader"
  package func leaderHolder() async -> (holder: String, term: Int64)? { isLeading ? (holder, term) : nil }
  package func tryToLead() async throws(StoreError) -> Bool {
    leading.withLock { $0 = 1 }
    return true
  }
  package func confirmLead(within timeout: Duration) async throws(StoreError) {
    guard isLeading else { throw StoreError(.superseded, path: location, "another daemon leads") }
  }
  package func stepDown() async { leading.withLock { $0 = 0 } }
  package func journalWakeups(every interval: Duration) -> StoreWakeups {
    let (stream, wake) = AsyncStream<Void>.makeStream()
    return StoreWakeups(stream: stream) { wake.finish() }
  }

  package var location: String { base.location }
  package var fsync: FsyncPolicy { base.fsync }
  package var recordedSchema: String? { base.recordedSchema }
  package func recover() throws(StoreError) -> StoreRecovery { try base.recover() }
  package func recordSchema(_ schema: String) async throws(StoreError) { try await base.recordSchema(schema) }
  package func appendNow(_ entries: [JournalEntry]) throws(StoreError) { try base.appendNow(entries) }
  package func probeWrite() throws(StoreError) { try base.probeWrite() }
  package func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    try await base.saveSnapshot(encoded: bytes, revision: revision, createdAt: createdAt, keepingFrom: windowStart, undoHistory: undoHistory)
  }
  package func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? { try await base.state(at: revision) }
  package func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] { try await base.journal(since: since, limit: limit) }
  package func journalRange() throws(StoreError) -> ClosedRange<UInt64>? { try base.journalRange() }
  package func snapshotRevisions() throws(StoreError) -> [UInt64] { try base.snapshotRevisions() }
  package func checkpoint() throws(StoreError) {}
  package var storedBytes: Int { 0 }
  package func close() async {}
}
