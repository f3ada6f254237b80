import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

/// `arborctl top` and `daemon.metrics` against a real daemon: the figures it shows move
/// with the requests made meanwhile.
@Suite(.startsProcesses) struct ArborctlTopTests {
  @Test func topShowsTheRatesOfEachIntervalFromDaemonMetrics() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      // Intents and failing reads for as long as top samples, from a thread of their own:
      // on a busy machine arborctl may take seconds to start, and a task on the
      // cooperative pool may hardly run while the rest of the suite does.
      let stop = Atomic<Bool>(false)
      let done = DispatchSemaphore(value: 0)
      let socketPath = daemon.socket
      Thread.detachNewThread {
        defer { done.signal() }
        guard let socket = try? RawSocket(path: socketPath) else { return }
        var id = 0
        while !stop.load(ordering: .relaxed) {
          for request in [
            #"{"jsonrpc":"2.0","id":ID,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#,
            #"{"jsonrpc":"2.0","id":ID,"method":"state.get","params":{"path":"/nothing"}}"#,
          ] {
            id += 1
            socket.send(request.replacingOccurrences(of: "ID", with: String(id)) + "\n")
            var reply: [UInt8] = []
            while !reply.contains(UInt8(ascii: "\n")) && !stop.load(ordering: .relaxed) {
              reply += socket.readAvailable()
              usleep(1_000)
            }
          }
          usleep(20_000)
        }
      }
      let top = try await ArborctlTests.arborctl(["top", "--interval", "0.5", "--count", "3", "--json"], socket: daemon.socket)
      stop.store(true, ordering: .relaxed)
      await withCheckedContinuation { continuation in
        Thread.detachNewThread {
          done.wait()
          continuation.resume()
        }
      }
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
      try await HTTPListenerTests.promtoolAccepts(reply.text)
    }
  }

  @Test func topExits3AndSaysWhyWhenTheDaemonIsKilled() async throws {
    try await withDaemon { daemon, _ in
      let started = ContinuousClock.now
      async let top = ArborctlTests.arborctl(["top", "--interval", "0.2", "--json"], socket: daemon.socket)
      try await Self.waitUntilTopSamples(daemon)
      kill(daemon.pid, SIGKILL)
      let killed = ContinuousClock.now
      let outcome = try await top
      let ended = ContinuousClock.now - killed
      #expect(outcome.status == .exited(3), "top after kill -9: \(outcome.status), \(outcome.error)")
      #expect(outcome.error.contains("closed the connection"), "\(outcome.error)")
      #expect(ended < .seconds(5), "top ended \(ended) after the daemon was killed")
      #expect(!outcome.output.isEmpty, "top showed no figures in \(killed - started) before the kill")
    }
  }

  @Test func topExits4AfterTheTimeoutAgainstAFrozenDaemonAndSaysWhy() async throws {
    try await withDaemon { daemon, _ in
      async let top = ArborctlTests.arborctl(["top", "--interval", "0.2", "--timeout", "2", "--json"], socket: daemon.socket)
      try await Self.waitUntilTopSamples(daemon)
      kill(daemon.pid, SIGSTOP)
      let stopped = ContinuousClock.now
      let outcome: ArborctlTests.Outcome
      do {
        outcome = try await top
      } catch {
        kill(daemon.pid, SIGCONT)
        throw error
      }
      let ended = ContinuousClock.now - stopped
      kill(daemon.pid, SIGCONT)
      #expect(outcome.status == .exited(4), "top against a stopped daemon: \(outcome.status), \(outcome.error)")
      #expect(outcome.error.contains("no answer") && outcome.error.contains("--timeout"), "\(outcome.error)")
      // The timeout (2 s) after the last answer, plus an interval, and arborctl's exit.
      #expect(ended >= .milliseconds(1_500) && ended < .seconds(8), "top ended \(ended) after the daemon was stopped")
      // Thawed, the daemon serves again.
      let client = try await daemon.connect()
      defer { client.close() }
      _ = try await withDeadline("daemon.status after SIGCONT", seconds: 20) { try await client.call("daemon.status") }
    }
  }

  /// Waits until `arborctl top` is connected and has taken a few samples.
  static func waitUntilTopSamples(_ daemon: DaemonUnderTest) async throws {
    let client = try await daemon.connect()
    defer { client.close() }
    try await eventually("arborctl top to connect", seconds: 30) {
      (try await client.call("daemon.status")["clients"]?.intValue ?? 0) >= 2
    }
    try await Task.sleep(for: .seconds(1))
  }

  @Test func topRefusesABadIntervalAsUsage() async throws {
    let outcome = try await ArborctlTests.arborctl(["top", "--interval", "0"], socket: "/nonexistent.sock")
    #expect(outcome.status == .exited(2))
    #expect(outcome.error.contains("--interval must be at least 0.05 seconds"))
  }
}
