import Arbor
import ArborJSON
import ArborStore
import ArborTesting
import Foundation
import GRDB
import Testing

/// The store on real SQLite files in a temporary directory: creating, reopening,
/// journalling, snapshots and recovery, and every kind of file it must refuse.
/// A JSON Pointer from a literal the test knows is valid.
func P(_ text: String) -> JSONPointer { try! JSONPointer(text) }

@Suite struct StoreTests {
  let directory: String

  init() throws {
    directory = NSTemporaryDirectory() + "arbor-store-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
  }

  var path: String { directory + "/arbor.sqlite" }

  func open(root: String = "AppModel", schema: String = "sha256:one", fsync: FsyncPolicy = .always) throws -> Store {
    try Store.open(at: path, root: root, schema: schema, fsync: fsync)
  }

  static func record(revision: UInt64, state: JSONValue) -> SnapshotRecord {
    SnapshotRecord(root: "AppModel", schema: "sha256:one", revision: revision, createdAt: Date(timeIntervalSince1970: 1_700_000_000), state: state)
  }

  static func entry(_ revision: UInt64, _ operations: JSONPatchOperation...) -> JournalEntry {
    JournalEntry(revision: revision, time: Date(timeIntervalSince1970: 1_700_000_000 + Double(revision)), intent: "incrementTapped", target: "/counter", patch: JSONPatch(operations))
  }

  @Test func aNewStoreRecoversNothingAndAReopenedOneItsSnapshotAndJournal() async throws {
    let store = try open()
    #expect(try store.recover().record == nil)
    try await store.saveSnapshot(Self.record(revision: 3, state: ["count": 3, "name": "a"]))
    try await store.append([
      Self.entry(4, .replace(P("/count"), 4)),
      Self.entry(5, .replace(P("/count"), 5), .add(P("/extra"), true)),
    ])
    try await store.append([Self.entry(6, .remove(P("/extra")), .replace(P("/name"), "b"))])

    let reopened = try open()
    let recovery = try reopened.recover()
    #expect(recovery.snapshotRevision == 3)
    #expect(recovery.replayed == 3)
    #expect(recovery.record?.revision == 6)
    #expect(recovery.record?.state == ["count": 5, "name": "b"])
    #expect(try reopened.journalRange() == 4...6)
    let page = try await reopened.journal(since: 4, limit: 1)
    #expect(page.map(\.revision) == [5])
    #expect(page.first?.intent == "incrementTapped")
    #expect(page.first?.patch == [.replace(P("/count"), 5), .add(P("/extra"), true)])
  }

  /// The row's texts are bound without a copy: a batch of rows with no intent, an empty
  /// target, other scripts and a long patch reads back exactly, row by row.
  @Test func journalTextsReadBackExactlyWhateverTheirKind() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["text": ""]))
    let long = String(repeating: "ação 🌳 ", count: 20_000)
    let cases: [(intent: String?, target: String?, value: JSONValue)] = [
      (nil, nil, "a"),
      ("", "", "b"),
      ("renomear", "/lista/0/título", .string(long)),
      ("incrementTapped", nil, ""),
      (nil, "/counter", "c"),
    ]
    let entries = cases.enumerated().map { index, item in
      JournalEntry(
        revision: UInt64(index + 1), time: Date(timeIntervalSince1970: 1_700_000_000), intent: item.intent, target: item.target,
        patch: [.replace(P("/text"), item.value)])
    }
    try await store.append(entries)
    let page = try await open().journal(since: 0, limit: 10)
    #expect(page.count == cases.count)
    for (entry, item) in zip(page, cases) {
      #expect(entry.intent == item.intent, "revision \(entry.revision)")
      #expect(entry.target == item.target, "revision \(entry.revision)")
      #expect(entry.patch == [.replace(P("/text"), item.value)], "revision \(entry.revision)")
    }
    #expect(try open().recover().record?.state == ["text": "c"])
  }

  @Test func aSnapshotTrimsOnlyWhatNoRevisionOfTheWindowNeeds() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await store.append((1...15).map { Self.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    // The window starts at 7: revision 7 is read from snapshot 0, so nothing goes.
    try await store.saveSnapshot(Self.record(revision: 10, state: ["count": 10]), keepingFrom: 7)
    #expect(try store.snapshotRevisions() == [0, 10])
    #expect(try store.journalRange() == 1...15)
    #expect(try await store.state(at: 7)?.state == ["count": 7])
    // The window starts at 12: snapshot 10 serves it, so snapshot 0 and revisions 1…10 go.
    try await store.saveSnapshot(Self.record(revision: 15, state: ["count": 15]), keepingFrom: 12)
    #expect(try store.snapshotRevisions() == [10, 15])
    #expect(try store.journalRange() == 11...15)
    #expect(try await store.state(at: 7) == nil, "older than the oldest snapshot kept")
    #expect(try await store.state(at: 12)?.state == ["count": 12])
    #expect(try await store.state(at: 16) == nil, "newer than the journal")
    let recovery = try store.recover()
    #expect(recovery.snapshotRevision == 15)
    #expect(recovery.replayed == 0)
    #expect(recovery.record?.state == ["count": 15])
  }

  @Test func aLargeSnapshotIsWrittenInPartsAndReadBackWhole() async throws {
    let store = try open()
    // About 3 MB: several parts of a megabyte.
    let rows = JSONValue.array((0..<30_000).map { .object(["id": .int(Int64($0)), "name": .string(String(repeating: "x", count: 80))]) })
    try await store.saveSnapshot(Self.record(revision: 4, state: ["rows": rows]))
    let recovery = try open().recover()
    #expect(recovery.record?.state == ["rows": rows])
  }

  @Test func aFlippedByteInAPatchIsFoundByItsChecksum() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await store.append([Self.entry(1, .replace(P("/count"), 1111))])
    let queue = try DatabaseQueue(path: path)
    // 1111 becomes 1711: still valid JSON, a different state. SQLite cannot see it.
    try await queue.write { db in try db.execute(sql: "UPDATE journal SET patch = replace(patch, '1111', '1711')") }
    try queue.close()
    let error = #expect(throws: StoreError.self) { try open().recover() }
    #expect(error?.kind == .damaged)
    #expect(error?.message.contains("revision 1 of the journal does not match its checksum") == true, "\(String(describing: error))")
  }

  @Test func aFlippedByteInASnapshotIsFoundByItsChecksum() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 2, state: ["count": 2222]))
    let queue = try DatabaseQueue(path: path)
    try await queue.write { db in
      let bytes = try Data.fetchOne(db, sql: "SELECT bytes FROM snapshot_parts")!
      let changed = Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "2222", with: "2722").utf8)
      try db.execute(sql: "UPDATE snapshot_parts SET bytes = ?", arguments: [changed])
    }
    try queue.close()
    let error = #expect(throws: StoreError.self) { try open().recover() }
    #expect(error?.kind == .damaged)
    #expect(error?.message.contains("the snapshot of revision 2 does not match its checksum") == true, "\(String(describing: error))")
  }

  @Test func aGapInTheJournalIsDamageNamingTheRevisions() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await store.append([Self.entry(1, .replace(P("/count"), 1)), Self.entry(3, .replace(P("/count"), 3))])
    let error = #expect(throws: StoreError.self) { try store.recover() }
    #expect(error?.kind == .damaged)
    #expect(error?.description == "\(path): the journal jumps from revision 1 to 3: revisions are missing. Restore the file from a backup, or move it away to start fresh.")
  }

  @Test func aPatchThatDoesNotApplyIsDamage() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await store.append([Self.entry(1, .remove(P("/missing")))])
    let error = #expect(throws: StoreError.self) { try store.recover() }
    #expect(error?.kind == .damaged)
    #expect(error?.message.hasPrefix("revision 1 of the journal cannot be applied") == true)
  }

  @Test func anotherRootOrSchemaIsRefusedWithWhatToDo() throws {
    _ = try open()
    let root = #expect(throws: StoreError.self) { try open(root: "Thermostat") }
    #expect(root?.kind == .otherRoot)
    #expect(root?.message == "the store holds a tree of AppModel, and this daemon hosts Thermostat: point --state-dir at this daemon's own directory, or move the file away to start fresh.")
    let schema = #expect(throws: StoreError.self) { try open(schema: "sha256:two") }
    #expect(schema?.kind == .otherSchema)
    #expect(schema?.message.contains("give AppModel a `migrate`") == true)
  }

  @Test func aFileThatIsNotSQLiteIsRefused() throws {
    try Data("these are not the bytes of a database, whatever the name says".utf8).write(to: URL(fileURLWithPath: path))
    let error = #expect(throws: StoreError.self) { try open() }
    #expect(error?.kind == .notADatabase)
    #expect(error?.path == path)
  }

  @Test func aForeignSQLiteDatabaseIsRefused() throws {
    // A database made by the sqlite3 library of another program: one table of its own.
    let store = try open()
    _ = store
    try FileManager.default.removeItem(atPath: path)
    try? FileManager.default.removeItem(atPath: path + "-wal")
    try? FileManager.default.removeItem(atPath: path + "-shm")
    try ForeignDatabase.create(at: path)
    let error = #expect(throws: StoreError.self) { try open() }
    #expect(error?.kind == .foreignDatabase)
    #expect(error?.message.contains("its tables: recipes") == true)
  }

  /// What SQLite drops silently at opening, a last transaction cut short in the write-ahead
  /// log, is said in the recovery's warnings, with the revision the journal now ends at.
  @Test func aWriteCutShortAtTheEndOfTheLogIsSaidInTheRecoverysWarnings() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    for revision in UInt64(1)...5 { try store.appendNow([Self.entry(revision, .replace(P("/count"), .int(Int64(revision))))]) }
    #expect(try store.recover().warnings.isEmpty)
    // The database and its log as a crash during the last write would leave them: copied
    // while the store is open (closing it would empty the log), the log's last page cut.
    let copy = directory + "/copy.sqlite"
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy + "-wal"))
    let size = try handle.seekToEnd()
    try handle.truncate(atOffset: size - 2000)
    try handle.close()
    let reopened = try Store.open(at: copy, root: "AppModel", schema: "sha256:one", fsync: .always)
    let recovery = try reopened.recover()
    #expect(recovery.record?.revision == 4, "only the torn transaction is gone")
    #expect(recovery.warnings.count == 1)
    #expect(recovery.warnings.first?.contains("the last transaction in \(copy)-wal was incomplete") == true, "\(recovery.warnings)")
    #expect(recovery.warnings.first?.contains("the journal ends at revision 4") == true, "\(recovery.warnings)")
  }

  @Test func flippedBytesInAPageAreReportedAsDamageOrNotADatabase() async throws {
    let store = try open()
    try await store.saveSnapshot(Self.record(revision: 0, state: ["count": 0]))
    try await store.append((1...50).map { Self.entry($0, .replace(P("/count"), .int(Int64($0)))) })
    try store.checkpoint()
    // Overwrite the middle of the file (past the header page) with garbage.
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    let size = try handle.seekToEnd()
    try handle.seek(toOffset: max(4096, size / 2))
    try handle.write(contentsOf: Data(repeating: 0xA5, count: 8192))
    try handle.close()
    let error = #expect(throws: StoreError.self) {
      let reopened = try open()
      _ = try reopened.recover()
      _ = try reopened.journal(since: 0, limit: 1_000)
    }
    #expect(error.map { [.damaged, .notADatabase].contains($0.kind) } == true, "\(String(describing: error))")
  }
}

/// Group commit: revisions submitted while a transaction is written share the next one;
/// every revision a waiter was told is durable is in the file.
@Suite struct JournalWriterTests {
  @Test(arguments: [FsyncPolicy.always, .batch, .off])
  func revisionsSubmittedTogetherShareTransactionsAndAllAreWritten(fsync: FsyncPolicy) async throws {
    let directory = NSTemporaryDirectory() + "arbor-journal-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/arbor.sqlite"
    let store = try Store.open(at: path, root: "AppModel", schema: "sha256:one", fsync: fsync)
    try await store.saveSnapshot(StoreTests.record(revision: 0, state: ["count": 0]))
    let writer = JournalWriter(store: store, window: .milliseconds(20))
    // Submitted in order, as the daemon's commit path does; 200 clients wait at once.
    for revision in UInt64(1)...200 {
      writer.submit(StoreTests.entry(revision, .replace(P("/count"), .int(Int64(revision)))))
    }
    try await withDeadline("200 revisions to be durable") {
      try await withThrowingTaskGroup(of: Void.self) { group in
        for revision in UInt64(1)...200 {
          group.addTask { try await writer.durable(through: revision) }
        }
        try await group.waitForAll()
      }
    }
    let progress = writer.progress
    #expect(progress.revision == 200)
    #expect(writer.lag == 0)
    #expect(progress.transactions < 200, "revisions submitted together share transactions (\(progress.transactions) for 200)")
    let reopened = try Store.open(at: path, root: "AppModel", schema: "sha256:one", fsync: fsync)
    let recovery = try reopened.recover()
    #expect(recovery.record?.revision == 200)
    #expect(recovery.record?.state == ["count": 200])
    #expect(recovery.replayed == 200)
  }

  @Test func aWaiterForAWrittenRevisionReturnsAtOnceAndAppendWaitsUnderAlways() async throws {
    let directory = NSTemporaryDirectory() + "arbor-journal-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let store = try Store.open(at: directory + "/arbor.sqlite", root: "AppModel", schema: "sha256:one", fsync: .always)
    try await store.saveSnapshot(StoreTests.record(revision: 5, state: ["count": 5]))
    let writer = JournalWriter(store: store, after: 5)
    try await withDeadline("an already written revision") { try await writer.durable(through: 3) }
    try await withDeadline("revision 6 to be appended") {
      try await writer.append(StoreTests.entry(6, .replace(P("/count"), 6)))
    }
    #expect(try store.journalRange() == 6...6, "append returned after the row was committed")
  }
}
