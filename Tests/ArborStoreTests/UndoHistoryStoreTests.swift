import Arbor
import ArborJSON
import ArborStore
import Foundation
import GRDB
import Testing

/// The kept undo history in the store: changed with the revision that moved it, replaced by
/// a rebase's snapshot, read back at recovery, and dropped (with the reason) when it cannot
/// match the state.
@Suite struct UndoHistoryStoreTests {
  let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "arbor-undo-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  var path: String { directory + "/arbor.sqlite" }

  func open() throws -> Store {
    try Store.open(at: path, root: "AppModel", schema: "sha256:one", fsync: .always)
  }

  static func step(_ title: String) -> UndoStep {
    UndoStep(parts: [.init(model: ModelID("00000000000000a1")!, type: "Editor", values: ["title": .string(title)])])
  }

  static func entry(_ revision: UInt64, _ changes: UndoHistoryChange...) -> JournalEntry {
    JournalEntry(
      revision: revision, time: Date(timeIntervalSince1970: 1_700_000_000), intent: "edit", target: nil,
      patch: JSONPatch([.replace(P("/title"), .string("r\(revision)"))]), undoHistory: changes)
  }

  static let record = SnapshotRecord(
    root: "AppModel", schema: "sha256:one", revision: 0, createdAt: Date(timeIntervalSince1970: 1_700_000_000), state: ["title": ""])

  @Test func theHistoryFollowsTheJournalAndIsReadBackAtRecovery() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record)
    var expected = UndoHistory()
    let changes: [UndoHistoryChange] = [
      .recorded(Self.step("a"), limit: 3), .recorded(Self.step("b"), limit: 3), .recorded(Self.step("c"), limit: 3),
      .recorded(Self.step("d"), limit: 3), .undone(redo: Self.step("D")), .undone(redo: Self.step("C")),
      .redone(undo: Self.step("c2")),
    ]
    for (offset, change) in changes.enumerated() {
      try await store.append([Self.entry(UInt64(offset + 1), change)])
      expected.apply(change)
    }
    // A revision that moved nothing in the history leaves it as it is.
    try await store.append([Self.entry(8)])
    let recovery = try open().recover()
    #expect(recovery.record?.revision == 8)
    #expect(recovery.undoHistoryDropped == nil)
    #expect(recovery.undoHistory == expected)
    #expect(expected.undo.map { $0.parts[0].values["title"] } == ["b", "c2"], "the limit of 3 dropped a; two undos and a redo")
    #expect(expected.redo.map { $0.parts[0].values["title"] } == ["D"])

    // A new step drops the redo steps; clearing forgets all.
    try await store.append([Self.entry(9, .recorded(Self.step("e"), limit: 3))])
    #expect(try open().recover().undoHistory.redo.isEmpty)
    try await store.append([Self.entry(10, .cleared)])
    #expect(try open().recover().undoHistory == UndoHistory())
  }

  @Test func aRebaseSnapshotReplacesTheHistoryWhole() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record)
    try await store.append([Self.entry(1, .recorded(Self.step("a"), limit: 10)), Self.entry(2, .recorded(Self.step("b"), limit: 10))])
    let replacement = UndoHistory(undo: [Self.step("x")], redo: [Self.step("y"), Self.step("z")])
    var snapshot = Self.record
    snapshot.revision = 2
    try await store.saveSnapshot(snapshot, undoHistory: replacement)
    try await store.append([Self.entry(3, .undone(redo: Self.step("X")))])
    var expected = replacement
    expected.apply(.undone(redo: Self.step("X")))
    #expect(try open().recover().undoHistory == expected)
    // A snapshot saved without a history (a compaction) leaves it alone.
    snapshot.revision = 3
    try await store.saveSnapshot(snapshot)
    #expect(try open().recover().undoHistory == expected)
  }

  @Test func aStepNewerThanTheStateIsDroppedWithTheReason() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record)
    try await store.append([Self.entry(1, .recorded(Self.step("a"), limit: 10)), Self.entry(2, .recorded(Self.step("b"), limit: 10))])
    // The journal's last revision lost (as a restore from an older backup of the journal would).
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in try db.execute(sql: "DELETE FROM journal WHERE revision = 2") }
    try queue.close()
    let recovery = try open().recover()
    #expect(recovery.record?.revision == 1)
    #expect(recovery.undoHistory == UndoHistory())
    #expect(recovery.undoHistoryDropped?.contains("a step was kept for revision 2, after the newest state (revision 1)") == true, "\(String(describing: recovery.undoHistoryDropped))")
  }

  @Test func aChangedStepIsFoundByItsChecksum() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record)
    try await store.append([Self.entry(1, .recorded(Self.step("milk"), limit: 10))])
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in try db.execute(sql: "UPDATE undo_steps SET step = replace(step, 'milk', 'mild')") }
    try queue.close()
    let recovery = try open().recover()
    #expect(recovery.undoHistory == UndoHistory())
    #expect(recovery.undoHistoryDropped == "the step kept for revision 1 does not match its checksum")
  }

  @Test func aStoreOfTheFirstLayoutGainsTheTableAndStartsWithNoHistory() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record)
    try await store.append([Self.entry(1, .recorded(Self.step("a"), limit: 10))])
    // Back to layout 1: no undo table, its migration not recorded.
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      try db.execute(sql: "DROP TABLE undo_steps")
      try db.execute(sql: "DELETE FROM grdb_migrations WHERE identifier = 'v2'")
      try db.execute(sql: "UPDATE store_info SET value = '1' WHERE key = 'format'")
    }
    try queue.close()
    let recovery = try open().recover()
    #expect(recovery.record?.revision == 1)
    #expect(recovery.undoHistory == UndoHistory())
    #expect(recovery.undoHistoryDropped == nil)
  }
}
