import Arbor
import ArborLocking
import ArborStorage
import Foundation

/// A memory store that says it is shared by several daemons (``StoreLeadership``), as the
/// PostgreSQL store does, and nothing else.
final class SharedMemoryStore: StoreLeadership {
  let base = MemoryStore()
  /// The term this store leads in; 0 while a standby.
  let leading = LockedState<Int64>(0)

  var leadership: (any StoreLeadership)? { self }
  var term: Int64 { leading.withLock { $0 } }
  var isLeading: Bool { term > 0 }
  let holder = "memory leader"
  func leaderHolder() async -> (holder: String, term: Int64)? { isLeading ? (holder, term) : nil }
  func tryToLead() async throws(StoreError) -> Bool {
    leading.withLock { $0 = 1 }
    return true
  }
  func confirmLead(within timeout: Duration) async throws(StoreError) {
    guard isLeading else { throw StoreError(.superseded, path: location, "another daemon leads") }
  }
  func stepDown() async { leading.withLock { $0 = 0 } }
  func journalWakeups(every interval: Duration) -> StoreWakeups {
    let (stream, wake) = AsyncStream<Void>.makeStream()
    return StoreWakeups(stream: stream) { wake.finish() }
  }

  var location: String { base.location }
  var fsync: FsyncPolicy { base.fsync }
  var recordedSchema: String? { base.recordedSchema }
  func recover() throws(StoreError) -> StoreRecovery { try base.recover() }
  func recordSchema(_ schema: String) async throws(StoreError) { try await base.recordSchema(schema) }
  func appendNow(_ entries: [JournalEntry]) throws(StoreError) { try base.appendNow(entries) }
  func probeWrite() throws(StoreError) { try base.probeWrite() }
  func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    try await base.saveSnapshot(encoded: bytes, revision: revision, createdAt: createdAt, keepingFrom: windowStart, undoHistory: undoHistory)
  }
  func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? { try await base.state(at: revision) }
  func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] { try await base.journal(since: since, limit: limit) }
  func journalRange() throws(StoreError) -> ClosedRange<UInt64>? { try base.journalRange() }
  func snapshotRevisions() throws(StoreError) -> [UInt64] { try base.snapshotRevisions() }
  func checkpoint() throws(StoreError) {}
  var storedBytes: Int { 0 }
  func close() async {}
}
