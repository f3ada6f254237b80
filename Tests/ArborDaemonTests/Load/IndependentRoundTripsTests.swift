import ArborClient
import ArborJSON
import ArborLoad
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// `LineLoad.independentRoundTrips`: a thread and a blocking connection per client against
/// the real `counterfactd`, every request answered once, and errors that stop the run.
@Suite(.startsProcesses) struct IndependentRoundTripsTests {
  static let increment = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#.utf8) + [0x0A]

  @Test func everyRequestOfEveryClientIsAnsweredOnce() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let socket = daemon.socket
      let result = try await withDeadline("8 clients × 25 increments") {
        try await LineLoad.onThread {
          try LineLoad.independentRoundTrips(socket: socket, clients: 8, requests: 203, request: Self.increment)
        }
      }
      #expect(result.requests == 203)
      #expect(result.rps > 0)
      #expect(result.p50 <= result.p99 && result.p99 <= result.p999 && result.p999 <= result.max)
      // Each increment ran once: the count is the number of requests.
      #expect(try await client.call("state.get", ["path": "/counters/0/counter/count"])["value"] == 203)
    }
  }

  @Test func anErrorReplyStopsTheRunQuotingIt() async throws {
    try await withDaemon { daemon, _ in
      let socket = daemon.socket
      let unknown = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"explode"}}"#.utf8) + [0x0A]
      let error = await #expect(throws: LoadError.self) {
        try await LineLoad.onThread { try LineLoad.independentRoundTrips(socket: socket, clients: 2, requests: 10, request: unknown) }
      }
      #expect(error?.kind == .errorReply)
      #expect(error?.description.contains("explode") == true, "\(String(describing: error))")
    }
  }

  @Test func aSocketWithNobodyIsACleanError() async throws {
    let error = await #expect(throws: LoadError.self) {
      try await LineLoad.onThread {
        try LineLoad.independentRoundTrips(socket: "/tmp/arbor-nobody-\(getpid()).sock", clients: 2, requests: 10, request: Self.increment)
      }
    }
    #expect(error?.kind == .cannotConnect)
  }
}
