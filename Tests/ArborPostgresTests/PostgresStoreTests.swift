import Arbor
import ArborJSON
import ArborPostgres
import ArborStorage
import ArborTesting
import Foundation
import Logging
import PostgresTestServer
import ProcessSlots
import Testing

/// A JSON Pointer from a literal the test knows is valid.
func P(_ text: String) -> JSONPointer { try! JSONPointer(text) }

/// Runs a call of the store that waits on a thread of its own, never on the cooperative
/// pool's.
///
/// Its deadline is past the store's own longest one (a recovery's 120 s): the store
/// answers every call by then, so what this deadline catches is a call that never got
/// going, not a slow server. (At 30 s, a whole run's heaviest tests once held a recovery's
/// task off the pool past it: Testing.md, "A busy machine".)
func offPool<T: Sendable>(
  _ what: @autoclosure () -> String = "the store", _ body: @escaping @Sendable () throws -> T
) async throws -> T {
  try await withDeadline(what(), seconds: 150) {
    try await withCheckedThrowingContinuation { continuation in
      Thread { continuation.resume(with: Result { try body() }) }.start()
    }
  }
}

/// The PostgreSQL store on a real server (Debian's, started in a temporary directory by
/// `PostgresTestServer`), a database of its own per test: the SQLite store's behaviour,
/// the leader's lock and term, fencing, and the errors the user sees.
@Suite(.startsProcesses) struct PostgresStoreTests {
  static let logger = Logger(label: "arbor.postgres.tests")

  static func open(
    _ address: String, root: String = "AppModel", schema: String = "sha256:one", holder: String = "test daemon"
  ) async throws -> PostgresStore {
    let address = try PostgresAddress(address)
    return try await withDeadline("the store at \(address) to open", seconds: 30) {
      try await PostgresStore.open(address, root: root, schema: schema, fsync: .always, holder: holder, logger: logger)
    }
  }

  static func record(revision: UInt64, state: JSONValue) -> SnapshotRecord {
    SnapshotRecord(root: "AppModel", schema: "sha256:one", revision: revision, createdAt: Date(timeIntervalSince1970: 1_700_000_000), state: state)
  }

  static func entry(_ revision: UInt64, _ operations: JSONPatchOperation...) -> JournalEntry {
    JournalEntry(
      revision: revision, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(revision)), intent: "incrementTapped", target: "/counter",
      patch: JSONPatch(operations))
  }

  static func append(_ store: PostgresStore, _ entries: [JournalEntry]) async throws {
    try await offPool("the journal's transaction") { try store.appendNow(entries) }
  }

  @Test func aReopenedStoreRecoversItsSnapshotAndJournalWrittenInItsTerm() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    #expect(store.term == 1)
    #expect(try await offPool { try store.recover() }.record == nil)
    try await store.saveSnapshot(Self.record(revision: 3, state: ["count": 3, "name": "a"]))
    try await Self.append(store, [Self.entry(4, .replace(P("/count"), 4)), Self.entry(5, .replace(P("/count"), 5), .add(P("/extra"), true))])
    try await Self.append(store, [Self.entry(6, .remove(P("/extra")), .replace(P("/name"), "b"))])
    await store.close()

    let reopened = try await Self.open(address)
    #expect(reopened.term == 2, "a new leader raises the term")
    let recovery = try await offPool { try reopened.recover() }
    #expect(recovery.snapshotRevision == 3)
    #expect(recovery.replayed == 3)
    #expect(recovery.record?.revision == 6)
    #expect(recovery.record?.state == ["count": 5, "name": "b"])
    #expect(try await offPool { try reopened.journalRange() } == 4...6)
    let page = try await reopened.journal(since: 4, limit: 1)
    #expect(page.map(\.revision) == [5])
    #expect(page.first?.intent == "incrementTapped")
    #expect(page.first?.patch == [.replace(P("/count"), 5), .add(P("/extra"), true)])
    #expect(try await reopened.state(at: 5)?.state == ["count": 5, "name": "a", "extra": true])
    #expect(try await PostgresTestServer.sql("SELECT DISTINCT term FROM journal", on: address) == "1", "each row carries its leader's term")
    await reopened.close()
  }

  @Test func aSnapshotTrimsOnlyWhatNoRevisionOfTheWindowNeeds() async throws {
    let store = try await Self.open(try await PostgresTestServer.newDatabase())
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await Self.append(store, (1...15).map { Self.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    try await store.saveSnapshot(Self.record(revision: 10, state: ["count": 10]), keepingFrom: 7)
    #expect(try await offPool { try store.snapshotRevisions() } == [0, 10])
    #expect(try await offPool { try store.journalRange() } == 1...15)
    #expect(try await store.state(at: 7)?.state == ["count": 7])
    try await store.saveSnapshot(Self.record(revision: 15, state: ["count": 15]), keepingFrom: 12)
    #expect(try await offPool { try store.snapshotRevisions() } == [10, 15])
    #expect(try await offPool { try store.journalRange() } == 11...15)
    #expect(try await store.state(at: 7) == nil, "older than the oldest snapshot kept")
    #expect(try await store.state(at: 12)?.state == ["count": 12])
    #expect(try await store.state(at: 16) == nil, "newer than the journal")
    let recovery = try await offPool { try store.recover() }
    #expect(recovery.snapshotRevision == 15)
    #expect(recovery.replayed == 0)
  }

  @Test func aSecondDaemonIsRefusedWhileTheFirstLeadsAndNamesIt() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let first = try await Self.open(address, holder: "counterfactd (pid 1 on host-a)")
    let error = await #expect(throws: StoreError.self) { try await Self.open(address, holder: "counterfactd (pid 2 on host-b)") }
    #expect(error?.kind == .busy)
    #expect(error?.message.contains("counterfactd (pid 1 on host-a)") == true, "\(error?.message ?? "")")
    #expect(error?.message.contains("one daemon writes a store at a time") == true)
    await first.close()
    let second = try await Self.open(address, holder: "counterfactd (pid 2 on host-b)")
    #expect(second.term == 2)
    await second.close()
  }

  @Test func aLeaderWhoseTermWasRaisedWritesNothingMore() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await Self.append(store, [Self.entry(1, .replace(P("/count"), 1))])
    // Another leader raised the term (as one that took over would).
    try await PostgresTestServer.sql("UPDATE store_leader SET term = term + 1", on: address)
    let error = await #expect(throws: StoreError.self) { try await Self.append(store, [Self.entry(2, .replace(P("/count"), 2))]) }
    #expect(error?.kind == .superseded)
    #expect(error?.message.contains("another daemon leads this store now (term 2, this daemon's 1)") == true, "\(error?.message ?? "")")
    #expect(try await PostgresTestServer.sql("SELECT max(revision) FROM journal", on: address) == "1", "revision 2 was not written")
    let snapshot = await #expect(throws: StoreError.self) { try await store.saveSnapshot(Self.record(revision: 1, state: ["count": 1])) }
    #expect(snapshot?.kind == .superseded, "snapshots are fenced too")
    // Even over a revision that has a snapshot: the kept one is not touched.
    let over = await #expect(throws: StoreError.self) { try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 99])) }
    #expect(over?.kind == .superseded)
    await store.close()
    let reopened = try await Self.open(address)
    #expect(try await offPool { try reopened.recover() }.record?.state == ["count": 1], "snapshot 0 and revision 1, as they were kept")
    await reopened.close()
  }

  @Test func aSnapshotOfTheSameRevisionWithOtherBytesReplacesTheKeptOneWhole() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    try await store.saveSnapshot(Self.record(revision: 3, state: ["count": 3]))
    // The same bytes again: nothing is written.
    try await store.saveSnapshot(Self.record(revision: 3, state: ["count": 3]))
    // Other bytes at the same revision (a state migrated at a start): replaced whole.
    try await store.saveSnapshot(Self.record(revision: 3, state: ["count": 3, "migrated": true]))
    #expect(try await offPool { try store.recover() }.record?.state == ["count": 3, "migrated": true])
    #expect(try await PostgresTestServer.sql("SELECT count(*) FROM snapshot_parts WHERE revision = 3", on: address) == "1")
    await store.close()
  }

  @Test func aRevisionAnotherLeaderWroteFirstStopsThisOne() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await PostgresTestServer.sql(
      "INSERT INTO journal (revision, term, time, patch, checksum) VALUES (1, 1, 0, '[]', 0)", on: address)
    let error = await #expect(throws: StoreError.self) { try await Self.append(store, [Self.entry(1, .replace(P("/count"), 1))]) }
    #expect(error?.kind == .superseded)
    #expect(error?.message.contains("another daemon wrote this revision first") == true, "\(error?.message ?? "")")
  }

  @Test func aLostConnectionIsMadeAgainInTheSameTermWhenNobodyLedMeanwhile() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await Self.append(store, [Self.entry(1, .replace(P("/count"), 1))])
    // The server ends the leader's session (as a restart of PostgreSQL would).
    try await PostgresTestServer.sql(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      on: address)
    try await eventually { (try? await PostgresTestServer.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())", on: address)) == "0" }
    // The first write after it may find the connection closed; the next one reconnects.
    if (try? await Self.append(store, [Self.entry(2, .replace(P("/count"), 2))])) == nil {
      try await Self.append(store, [Self.entry(2, .replace(P("/count"), 2))])
    }
    #expect(try await PostgresTestServer.sql("SELECT string_agg(term::text, ',' ORDER BY revision) FROM journal", on: address) == "1,1")
    #expect(try await offPool { try store.recover() }.record?.state == ["count": 2])
  }

  /// How many sessions hold the leader's advisory lock in `address`'s database.
  static func leaderLocks(_ address: String) async throws -> String {
    try await PostgresTestServer.sql(
      "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      on: address)
  }

  @Test func aSlowAnswerToTheLeadersCheckDoesNotCostTheLead() async throws {
    // A loaded server (here: another session holding the term's table for 4 s) answers the
    // leader's check late. The check says so, and the leader keeps its lock: it once closed
    // its own session at the check's deadline, which handed the lock to a standby
    // (NetworkCutTests under load, Testing.md).
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    async let held = PostgresTestServer.sql(
      "BEGIN; LOCK TABLE store_leader IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;", on: address)
    try await eventually {
      (try? await PostgresTestServer.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'relation' AND mode = 'AccessExclusiveLock' AND granted AND relation = 'store_leader'::regclass", on: address)) == "1"
    }
    do {
      try await store.confirmLead(within: .seconds(1))
      Issue.record("a check the server could not answer in time was taken for an answer")
    } catch {
      #expect(error.kind == .unreachable, "\(error)")
    }
    _ = try await held
    // The blocked statements have ended by now: a session closed meanwhile would have gone.
    try await Task.sleep(for: .milliseconds(500))
    #expect(try await Self.leaderLocks(address) == "1", "the leader's session still holds the lock")
    let second = try await withDeadline("a second store to open", seconds: 30) {
      try await PostgresStore.open(
        PostgresAddress(address), root: "AppModel", schema: "sha256:one", fsync: .always, holder: "standby", standbyWhenLed: true,
        logger: Self.logger)
    }
    defer { Task { await second.close() } }
    #expect(!second.isLeading)
    #expect(try await second.tryToLead() == false, "the lead is not free")
    try await store.confirmLead(within: .seconds(3))
    try await Self.append(store, [Self.entry(1, .replace(P("/count"), 1))])
    #expect(try await PostgresTestServer.sql("SELECT string_agg(term::text, ',' ORDER BY revision) FROM journal", on: address) == "1")
  }

  @Test func aSessionTheServerEndedIsFoundByTheCheckAndMadeAgainInTheSameTerm() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await PostgresTestServer.sql(
      "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
      on: address)
    try await eventually { (try? await Self.leaderLocks(address)) == "0" }
    // The check, not a write, finds the session gone and makes it again: the lock is held
    // again, in the same term.
    try await eventually { (try? await store.confirmLead(within: .seconds(3))) != nil }
    #expect(try await Self.leaderLocks(address) == "1")
    #expect(store.term == 1)
  }

  @Test func damageIsFoundAndNamedWithWhatToDo() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    defer { Task { await store.close() } }
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await Self.append(store, (1...4).map { Self.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    try await PostgresTestServer.sql(#"UPDATE journal SET patch = replace(patch, '3', '9') WHERE revision = 3"#, on: address)
    let changed = await #expect(throws: StoreError.self) { try await offPool { try store.recover() } }
    #expect(changed?.kind == .damaged)
    #expect(
      changed?.message
        == "revision 3 of the journal does not match its checksum (its bytes were changed): restore the database from a backup (pg_dump), or drop the store's tables to start fresh."
    )
    try await PostgresTestServer.sql("DELETE FROM journal WHERE revision = 3", on: address)
    let gap = await #expect(throws: StoreError.self) { try await offPool { try store.recover() } }
    #expect(gap?.message.hasPrefix("the journal jumps from revision 2 to 4: revisions are missing. Restore the database") == true, "\(gap?.message ?? "")")
    try await PostgresTestServer.sql("UPDATE snapshot_parts SET bytes = 'x'::bytea", on: address)
    let snapshot = await #expect(throws: StoreError.self) { try await offPool { try store.recover() } }
    #expect(snapshot?.message.hasPrefix("the snapshot of revision 0 is incomplete") == true, "\(snapshot?.message ?? "")")
  }

  @Test func aStoreOfAnotherTreeOrANewerLayoutOrATableOfSomethingElseIsRefused() async throws {
    let address = try await PostgresTestServer.newDatabase()
    await (try await Self.open(address)).close()
    let root = await #expect(throws: StoreError.self) { try await Self.open(address, root: "OtherModel") }
    #expect(root?.kind == .otherRoot)
    #expect(root?.message.contains("the store holds a tree of AppModel, and this daemon hosts OtherModel") == true)
    let schema = await #expect(throws: StoreError.self) { try await Self.open(address, schema: "sha256:two") }
    #expect(schema?.kind == .otherSchema)
    try await PostgresTestServer.sql("UPDATE store_info SET value = '99' WHERE key = 'format'", on: address)
    let newer = await #expect(throws: StoreError.self) { try await Self.open(address) }
    #expect(newer?.kind == .newerFormat)
    #expect(newer?.message.contains("the store has layout 99, this build reads up to 2") == true)

    let foreign = try await PostgresTestServer.newDatabase()
    try await PostgresTestServer.sql("CREATE TABLE store_info (name text)", on: foreign)
    let other = await #expect(throws: StoreError.self) { try await Self.open(foreign) }
    #expect(other != nil)
    #expect(other?.kind == .foreignDatabase || other?.kind == .io, "\(String(describing: other))")
  }

  @Test func theUndoHistoryFollowsTheJournal() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let store = try await Self.open(address)
    try await store.saveSnapshot(Self.record(revision: 0, state: ["title": ""]))
    func step(_ title: String) -> UndoStep {
      UndoStep(parts: [.init(model: ModelID("00000000000000a1")!, type: "Editor", values: ["title": .string(title)])])
    }
    var expected = UndoHistory()
    let changes: [UndoHistoryChange] = [
      .recorded(step("a"), limit: 2), .recorded(step("b"), limit: 2), .recorded(step("c"), limit: 2), .undone(redo: step("C")),
    ]
    var entries: [JournalEntry] = []
    for (offset, change) in changes.enumerated() {
      var entry = Self.entry(UInt64(offset + 1), .replace(P("/title"), .string("r\(offset + 1)")))
      entry.undoHistory = [change]
      entries.append(entry)
      expected.apply(change)
    }
    // In one transaction, as the journal writer's group commit does.
    try await Self.append(store, entries)
    await store.close()
    let reopened = try await Self.open(address)
    let recovery = try await offPool { try reopened.recover() }
    await reopened.close()
    #expect(recovery.undoHistoryDropped == nil)
    #expect(recovery.undoHistory == expected)
    #expect(expected.undo.map { $0.parts[0].values["title"] } == ["b"])
  }

  @Test func aServerThatCannotBeReachedIsSaidSo() async throws {
    let error = await #expect(throws: StoreError.self) {
      try await Self.open("postgresql://postgres@/arbor?host=/nonexistent-directory")
    }
    #expect(error?.kind == .unreachable)
    #expect(error?.path == "postgresql://postgres@/arbor?host=/nonexistent-directory")
    #expect(error?.message.contains("is the server running, and is --store's address right?") == true, "\(error?.message ?? "")")
    let address = #expect(throws: PostgresAddressError.self) { try PostgresAddress("postgres://host/db?sslmode=verify-full") }
    #expect(address?.description.contains("sslmode=verify-full is not supported") == true)
  }
}

/// Waits until `condition` holds, for at most 10 s.
func eventually(_ condition: @Sendable () async throws -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
  let deadline = ContinuousClock.now + .seconds(10)
  while ContinuousClock.now < deadline {
    if try await condition() { return }
    try await Task.sleep(for: .milliseconds(20))
  }
  Issue.record("a condition did not hold within 10 s", sourceLocation: sourceLocation)
}
