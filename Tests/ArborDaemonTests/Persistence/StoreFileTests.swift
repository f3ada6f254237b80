import Arbor
import ArborClient
import ArborJSON
import ArborStore
import ArborTesting
import Foundation
import GRDB
import ProcessSlots
import Subprocess
import Testing

/// What the real daemon says about each kind of bad store file: it refuses to start with a
/// message naming the file, what is wrong and what to do, and loses nothing; a write cut
/// short at the end of the log is dropped with a warning naming the revision.
@Suite(.startsProcesses) struct StoreFileTests {
  /// Starts the daemon on `directory`, expecting it to refuse; returns what it printed.
  func refusal(_ directory: String) async throws -> String {
    let result = try await withDeadline("the daemon to refuse its store") {
      try await run(
        .path(.init(DaemonHarness.binary())),
        arguments: ["--socket", directory + "/d.sock", "--state-dir", directory + "/state"],
        output: .discarded, error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus != .exited(0))
    return result.standardError
  }

  func stateDirectory() throws -> (directory: String, store: String) {
    let directory = try DaemonHarness.temporaryDirectory()
    try FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
    return (directory, directory + "/state/arbor.sqlite")
  }

  @Test func aFileThatIsNotSQLite() async throws {
    let (directory, store) = try stateDirectory()
    let text = Data(String(repeating: "not a database\n", count: 500).utf8)
    try text.write(to: URL(fileURLWithPath: store))
    let message = try await refusal(directory)
    #expect(message.contains("cannot start from \(store): the file is not an SQLite database"), "\(message)")
    #expect(message.contains("move it away to start fresh"))
    #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == text, "the file is left as it was")
  }

  @Test func aForeignSQLiteDatabase() async throws {
    let (directory, store) = try stateDirectory()
    let queue = try DatabaseQueue(path: store)
    try await queue.write { db in try db.execute(sql: "CREATE TABLE recipes (id INTEGER PRIMARY KEY, name TEXT)") }
    try queue.close()
    let message = try await refusal(directory)
    #expect(message.contains("\(store): this SQLite database is not an Arbor store (its tables: recipes)"), "\(message)")
  }

  @Test func aStoreOfAnotherRootType() async throws {
    let (directory, store) = try stateDirectory()
    _ = try Store.open(at: store, root: "ThermostatModel", schema: "sha256:thermostat", fsync: .off)
    let message = try await refusal(directory)
    #expect(message.contains("the store holds a tree of ThermostatModel, and this daemon hosts AppModel"), "\(message)")
  }

  @Test func aStoreOfAnIncompatibleSchemaWithoutAMigrate() async throws {
    let (directory, path) = try stateDirectory()
    let store = try Store.open(at: path, root: "AppModel", schema: "sha256:old", fsync: .off)
    try await store.saveSnapshot(
      SnapshotRecord(root: "AppModel", schema: "sha256:old", revision: 7, createdAt: Date(), state: ["tally": 3]))
    let message = try await refusal(directory)
    #expect(message.contains("cannot start from \(path): its state at revision 7 cannot be restored"), "\(message)")
    #expect(message.contains("Give AppModel a `migrate` that upgrades it"))
  }

  @Test func aFlippedByteInASnapshotPage() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    try await withDaemon(directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      for _ in 0..<3 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
    }
    // A clean stop saved a snapshot and checkpointed: the record is in the database file.
    let store = directory + "/state/arbor.sqlite"
    var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
    let marker = Data("\"revision\":3".utf8)
    let found = try #require(bytes.range(of: marker), "the snapshot record's text is in a page of the file")
    bytes[found.upperBound - 1] = UInt8(ascii: "8")
    try bytes.write(to: URL(fileURLWithPath: store))
    let message = try await refusal(directory)
    #expect(message.contains("cannot start from \(store): the snapshot of revision 3 does not match its checksum"), "\(message)")
    #expect(message.contains("restore the file from a backup"))
  }

  @Test func garbageOverAPageOfTheDatabase() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    try await withDaemon(directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      for _ in 0..<20 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
    }
    let store = directory + "/state/arbor.sqlite"
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: store))
    let size = try handle.seekToEnd()
    // Every page after the first (SQLite's header and schema page).
    try handle.seek(toOffset: 4096)
    try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4096))
    try handle.close()
    let message = try await refusal(directory)
    #expect(message.contains("cannot start from \(store):"), "\(message)")
    #expect(message.contains("damaged") || message.contains("not an SQLite database"), "\(message)")
  }

  @Test func aWriteCutShortAtTheEndOfTheLogIsDroppedWithAWarning() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let (before, _) = try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<5 { try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
      let revision = try await client.call("state.get")["revision"]?.intValue ?? -1
      try execution.send(signal: .kill)
      return revision
    }
    // The last transaction's last page loses its second half, as a crash during the write
    // would leave it.
    let log = directory + "/state/arbor.sqlite-wal"
    let size = try #require(try FileManager.default.attributesOfItem(atPath: log)[.size] as? NSNumber).intValue
    #expect(size > 32, "the log holds the journal's transactions")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    try handle.truncate(atOffset: UInt64(size - 2000))
    try handle.close()
    try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      let after = try await client.call("state.get")
      #expect(after["revision"]?.intValue == before - 1, "only the torn transaction is gone")
      #expect(after["value"]?["counters"]?[0]?["counter"]?["count"]?.intValue == 4)
      #expect(daemon.log.contains("the last transaction in \(log) was incomplete"), "\(daemon.log)")
      #expect(daemon.log.contains("the journal ends at revision \(before - 1)"), "\(daemon.log)")
    }
  }

  @Test func damageInTheMiddleOfTheLogStopsTheStart() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<5 { try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
      try execution.send(signal: .kill)
    }
    let log = directory + "/state/arbor.sqlite-wal"
    var bytes = try Data(contentsOf: URL(fileURLWithPath: log))
    // A byte of the first page's data (after the 32-byte log header and the 24-byte
    // frame header).
    bytes[32 + 24 + 100] ^= 0xFF
    try bytes.write(to: URL(fileURLWithPath: log))
    let message = try await refusal(directory)
    #expect(message.contains("\(log): the write-ahead log is damaged (page 1 of the log does not match its checksum"), "\(message)")
    #expect(message.contains("move the -wal file away"))
  }
}
