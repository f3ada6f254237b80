import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import PostgresTestServer
import Testing

/// counterfactd with its state in PostgreSQL (`--store`), started for real on a real
/// server: it keeps its state across a kill, a second daemon on the same database is
/// refused while the first leads and takes over once it is gone, and a wrong address stops
/// the start with what to do.
@Suite struct PostgresStoreDaemonTests {
  @Test func aSecondDaemonIsRefusedWhileTheFirstLeadsAndContinuesItsStateOnceItIsGone() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let (revision, status) = try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { daemon, execution -> UInt64 in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<3 { try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
      let (said, outcome) = try await runDaemonToExit(["--store", address])
      #expect(!outcome.isSuccess)
      #expect(said.contains("leads this store: one daemon writes a store at a time"), "\(said)")
      #expect(said.contains("counterfactd (pid \(daemon.pid) on"), "the refusal names the leader: \(said)")
      let status = try await client.call("daemon.status")
      let database = try #require(address.split(separator: "?").first?.split(separator: "/").last)
      #expect(status["journal"]?["file"]?.stringValue?.hasPrefix("postgresql://postgres@/\(database)?host=") == true, "\(status)")
      try? execution.send(signal: .kill)
      return UInt64(try #require(status["revision"]?.intValue))
    }
    #expect(status == .signaled(9))
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { daemon, _ in
      let client = try await daemon.connect()
      let state = try await client.call("state.get", ["path": "/counters/0/counter/count"])
      #expect(state["value"] == 3)
      #expect(UInt64(state["revision"]?.intValue ?? -1) == revision)
      // The revision sequence goes on without a gap, and the journal says who wrote what.
      let reply = try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      #expect(UInt64(reply["revision"]?.intValue ?? -1) == revision + 1)
      let terms = try await PostgresTestServer.sql("SELECT string_agg(DISTINCT term::text, ',') FROM journal", on: address)
      #expect(terms == "1,2", "the first daemon wrote in term 1, the second in term 2")
    }
  }

  @Test func aWrongAddressOrAServerThatCannotBeReachedStopsTheStartWithWhatToDo() async throws {
    let (tls, tlsOutcome) = try await runDaemonToExit(["--store", "postgres://db.example/arbor?sslmode=require"])
    #expect(!tlsOutcome.isSuccess)
    #expect(tls.contains("cannot start: --store sslmode=require is not supported"), "\(tls)")
    let (unknown, unknownOutcome) = try await runDaemonToExit(["--store", "postgres://db.example/arbor?pool=3"])
    #expect(!unknownOutcome.isSuccess)
    #expect(unknown.contains("the parameter pool is not understood"), "\(unknown)")
    let (gone, goneOutcome) = try await runDaemonToExit(["--store", "postgresql:///arbor?host=/nonexistent-directory"])
    #expect(!goneOutcome.isSuccess)
    #expect(gone.contains("cannot start from postgresql://"), "\(gone)")
    #expect(gone.contains("is the server running, and is --store's address right?"), "\(gone)")
    let server = try await PostgresTestServer.server()
    let missing = PostgresTestServer.address(directory: server.directory, port: server.port, database: "no_such_database")
    let (absent, absentOutcome) = try await runDaemonToExit(["--store", missing])
    #expect(!absentOutcome.isSuccess)
    #expect(absent.contains("database \"no_such_database\" does not exist: create the database first (createdb)"), "\(absent)")
  }
}
