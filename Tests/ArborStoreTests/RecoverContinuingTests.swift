import ArborJSON
import ArborStore
import Foundation
import Testing

/// `recover(continuing:)`: an upgrade's next process holds the state at an earlier revision
/// and reads only the journal after it, on a real SQLite file.
@Suite struct RecoverContinuingTests {
  let path: String

  init() throws {
    let directory = NSTemporaryDirectory() + "arbor-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    path = directory + "/arbor.sqlite"
  }

  func open() throws -> Store { try Store.open(at: path, root: "AppModel", schema: "sha256:one", fsync: .always) }

  @Test func theJournalAfterAHeldStateGivesWhatAWholeRecoveryGives() async throws {
    let store = try open()
    try await store.saveSnapshot(StoreTests.record(revision: 0, state: ["count": 0, "name": "a"]))
    try await store.append((1...12).map { StoreTests.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    // The old process's final snapshot, newer than the held state.
    try await store.saveSnapshot(StoreTests.record(revision: 12, state: ["count": 12, "name": "a"]))
    try await store.append([StoreTests.entry(13, .replace(P("/name"), "b"))])

    let held = StoreTests.record(revision: 5, state: ["count": 5, "name": "a"])
    let (recovery, entries) = try #require(try open().recover(continuing: held))
    let whole = try open().recover()
    #expect(entries.map(\.revision) == Array(6...13))
    #expect(recovery.record?.revision == 13)
    #expect(recovery.record?.state == whole.record?.state)
    #expect(recovery.record?.state == ["count": 12, "name": "b"])
    #expect(recovery.snapshotRevision == 12 && recovery.replayed == 1, "the revisions after the newest snapshot, as a whole recovery counts them")
    #expect(recovery.record?.createdAt == entries.last?.time)

    // Held at the newest revision: nothing to read.
    let newest = try #require(whole.record)
    let (same, none) = try #require(try open().recover(continuing: newest))
    #expect(none.isEmpty && same.record == newest)
  }

  /// A snapshot the journal does not reach (a revision only a snapshot holds, as after a
  /// `state.restore`), or journal rows trimmed away behind the held state: nil, and the
  /// caller recovers the whole state.
  @Test func aJournalThatDoesNotGoOnFromTheHeldStateIsNil() async throws {
    let store = try open()
    try await store.saveSnapshot(StoreTests.record(revision: 0, state: ["count": 0]))
    try await store.append((1...4).map { StoreTests.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    try await store.saveSnapshot(StoreTests.record(revision: 6, state: ["count": 60]))
    #expect(try open().recover(continuing: StoreTests.record(revision: 2, state: ["count": 2])) == nil, "revisions 5 and 6 are only in a snapshot")

    try await store.append([StoreTests.entry(7, .replace(P("/count"), 61))])
    try await store.saveSnapshot(StoreTests.record(revision: 7, state: ["count": 61]), keepingFrom: 7)
    #expect(try open().recover(continuing: StoreTests.record(revision: 4, state: ["count": 4])) == nil, "the journal after 4 is trimmed")
    try await store.append([StoreTests.entry(8, .replace(P("/count"), 62))])
    let held = StoreTests.record(revision: 7, state: ["count": 61])
    #expect(try open().recover(continuing: held)?.recovery.record?.state == ["count": 62])

    // A patch that does not apply to the held state (it is not the state the journal follows).
    try await store.append([StoreTests.entry(9, .remove(P("/count")))])
    #expect(try open().recover(continuing: StoreTests.record(revision: 8, state: ["other": true])) == nil)
  }
}
