import ArborJSON
import ArborStorage
import ArborTesting
import StoreDoubles
import Foundation
import Testing

/// The group-commit writer over any backend: a write that fails holds its revisions, in
/// order, and a retry writes them once the store takes writes again.
@Suite struct JournalWriterFailureTests {
  static func entry(_ revision: UInt64) -> JournalEntry {
    JournalEntry(
      revision: revision, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(revision)),
      patch: JSONPatch([.replace(try! JSONPointer("/count"), .int(Int64(revision)))]))
  }

  @Test func aFailedWriteHoldsItsRevisionsUntilARetryWritesThemInOrder() async throws {
    let store = MemoryStore()
    store.contents.withLock { $0.failing = StoreError(.full, path: "memory", "the file system is full") }
    let writer = JournalWriter(store: store)
    writer.submit(Self.entry(1))
    writer.submit(Self.entry(2))
    _ = try await withDeadline("the failed write to be reported") {
      await #expect(throws: StoreError.self) { try await writer.durable(through: 2) }
    }
    #expect(writer.hasFailed)
    #expect(writer.retry()?.kind == .full, "still failing: the revisions stay held")
    store.contents.withLock { $0.failing = nil }
    #expect(writer.retry() == nil)
    try await withDeadline("the held revisions to be durable") { try await writer.durable(through: 2) }
    #expect(!writer.hasFailed)
    #expect(store.contents.withLock { $0.journal.map(\.revision) } == [1, 2])
  }
}
