import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import Testing

/// `arborctl top` and `daemon.metrics` against a real daemon: the figures it shows move
/// with the requests made meanwhile.
@Suite struct ArborctlTopTests {
  @Test func topShowsTheRatesOfEachIntervalFromDaemonMetrics() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      // Intents and failing reads for as long as top samples (on a busy machine, arborctl
      // may take seconds to start).
      let calls = Task {
        while !Task.isCancelled {
          try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
          _ = try? await client.call("state.get", ["path": "/nothing"])
          try? await Task.sleep(for: .milliseconds(20))
        }
      }
      let top = try await ArborctlTests.arborctl(["top", "--interval", "0.5", "--count", "3", "--json"], socket: daemon.socket)
      calls.cancel()
      try await calls.value
      #expect(top.status == .exited(0), "\(top.error)")
      let lines = ArborctlCommandsTests.lines(top)
      #expect(lines.count == 3)
      guard let last = lines.last else { return }
      #expect(last["name"] == "counterfactd")
      #expect(last["writesRefused"] == false)
      let rows = lines.flatMap { $0["methods"]?.arrayValue ?? [] }
      let intentRows = rows.filter { $0["method"] == "intent.call" }
      #expect(!intentRows.isEmpty, "top showed no intent.call rate: \(top.output)")
      #expect(intentRows.allSatisfy { ($0["perSecond"]?.doubleValue ?? 0) > 0 && $0["p50Milliseconds"]?.doubleValue != nil })
      // The failed reads are counted as errors.
      #expect(rows.contains { $0["method"] == "state.get" && ($0["errorsPerSecond"]?.doubleValue ?? 0) > 0 })
      #expect(lines.contains { ($0["intentsPerSecond"]?.doubleValue ?? 0) > 0 })
      let revision = try await client.call("state.get")["revision"]?.intValue ?? -1
      #expect((last["revision"]?.intValue ?? 0) <= revision && (last["revision"]?.intValue ?? 0) > 1)
    }
  }

  @Test func daemonMetricsGivesTheTextOfMetricsOverTheSocket() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let reply = try await client.call(DaemonMetrics.self)
      #expect(reply.format == "text/plain; version=0.0.4")
      #expect(reply.text.contains("\narbor_revision 1.0\n") || reply.text.hasPrefix("arbor_revision 1.0\n"))
      #expect(reply.text.contains(#"arbor_requests_total{method="intent.call",outcome="ok"} 1"#))
      try HTTPListenerTests.promtoolAccepts(reply.text)
    }
  }

  @Test func topRefusesABadIntervalAsUsage() async throws {
    let outcome = try await ArborctlTests.arborctl(["top", "--interval", "0"], socket: "/nonexistent.sock")
    #expect(outcome.status == .exited(2))
    #expect(outcome.error.contains("--interval must be at least 0.05 seconds"))
  }
}
