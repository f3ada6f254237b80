import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import PostgresTestServer
import ProcessSlots
import Testing

/// A standby that cannot reach PostgreSQL answers a forwarded intent with an error that
/// names what happened (`org.arbor.NotForwarded`, its cause, whether it was queued), and
/// forwards again once the server answers.
@Suite(.startsProcesses) struct StandbyForwardingTests {
  @Test func aStandbyCutOffFromTheServerNamesWhyAnIntentWasNotForwarded() async throws {
    let address = try await PostgresTestServer.newDatabase()
    // The standby reaches the server over TCP through a link the test can cut; the
    // leader reaches it directly.
    let (link, throughLink) = try await CuttableLink.toDatabase(at: address)
    let increment: JSONValue = ["target": "/counters/0/counter", "intent": "incrementTapped"]
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { leader, _ in
      let writer = try await leader.connect()
      try await writer.call("intent.call", ["intent": "addButtonTapped"])
      try await withDaemon(arguments: ["--store", throughLink, "--fsync", "always"]) { standby, _ in
        let client = try await standby.connect()
        try await eventually("the standby to follow revision 1") { (try? await client.call("state.get"))?["revision"] == 1 }
        // Forwarded while the server answers.
        #expect(try await withDeadline("a forwarded intent") { try await client.call("intent.call", increment) }["revision"] == 2)

        link.cut()
        let refused = try await withDeadline("the refusal of a forwarded intent", seconds: 40) { () -> RPCError? in
          do {
            try await client.call("intent.call", increment)
            return nil
          } catch let error as ArborClientError {
            return error.rpcError
          }
        }
        let error = try #require(refused, "an intent was forwarded through a cut link")
        print("the standby's refusal: \(error.message)")
        #expect(error.is(.notForwarded), "\(error)")
        #expect(error.code == 1019)
        #expect(error.data?["cause"] == "unreachable", "\(error)")
        #expect(error.data?["queued"] == false, "\(error)")
        #expect(error.message.contains("(unreachable)") && error.message.contains("nothing was run"), "\(error.message)")
        // Nothing ran on the leader.
        #expect(try await writer.call("state.get")["revision"] == 2)

        // The link comes back: forwarding goes on.
        link.serverNotices()
        link.restore()
        try await eventually("a forwarded intent to be run again", seconds: 40) {
          (try? await client.call("intent.call", increment)) != nil
        }
        // Each increment the leader ran is one revision after the counter's.
        let state = try await writer.call("state.get", ["path": "/counters/0/counter/count"])
        let revision = try #require(state["revision"]?.intValue)
        #expect(revision >= 3)
        #expect(state["value"] == .int(revision - 1), "\(state)")
      }
    }
  }
}
