import Arbor
import ArborLocking
import ArborStore
import Foundation

/// The store of a large tree that the store and large-reply benchmarks start daemons on:
/// a `RootModel` with `models` `SmallModel` children, its snapshot, and `revisions`
/// journalled revisions after it (each a change of one child).
///
/// ```swift
/// let snapshot = try await LargeTreeStore.build(at: state + "/arbor.sqlite", models: 100_000, revisions: 0)
/// ```
enum LargeTreeStore {
  /// Builds the store at `path`; returns the snapshot's bytes.
  static func build(at path: String, models: Int, revisions: Int) async throws -> Data {
    let root = RootModel(children: (0..<models).map { SmallModel(value: $0, label: "model \($0)") })
    let (model, anchor) = root.andAnchor()
    let record = try anchor.snapshotRecord()
    let bytes = try record.encodedBytes()
    let store = try Store.open(at: path, root: RootModel._$typeName, schema: RootModel.schemaHash, fsync: .off)
    try await store.saveSnapshot(encoded: bytes, revision: record.revision, createdAt: record.createdAt, keepingFrom: nil, undoHistory: nil)
    let entries = LockedEntries()
    let listener = anchor.listen(limit: .max) { delivery in
      guard case .committed(let changeSet) = delivery else { return }
      entries.append(JournalEntry(revision: changeSet.revision, time: Date(), intent: "increment", target: nil, patch: changeSet.patch))
    }
    for index in 0..<revisions {
      model.children[(index * 7_919) % models].value += 1
    }
    listener.cancel()
    let journal = entries.all
    for start in stride(from: 0, to: journal.count, by: 1_000) {
      try await store.append(Array(journal[start..<min(journal.count, start + 1_000)]))
    }
    try store.checkpoint()
    return Data(bytes)
  }
}

/// Collects journal entries from a listener.
private final class LockedEntries: Sendable {
  private let entries = LockedState<[JournalEntry]>([])
  func append(_ entry: JournalEntry) { entries.withLock { $0.append(entry) } }
  var all: [JournalEntry] { entries.withLock { $0 } }
}
