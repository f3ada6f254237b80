import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// A reader that goes away (`| head -1`) ends arborctl quietly, with status 0 and nothing on
/// standard error, as `redis-cli`, `kubectl` and `jq` end — also for the commands that wait
/// for more (`watch`, `events`).
@Suite(.startsProcesses) struct ArborctlPipeTests {
  /// Runs `arborctl ARGUMENTS | head -1` in bash; arborctl's status and standard error.
  static func piped(_ arguments: String, socket: String) async throws -> (status: String, firstLine: String, error: String) {
    let script = "\(ArborctlTests.binary()) \(arguments) 2>\"$ERRORS\" | head -1; echo \"arborctl exited ${PIPESTATUS[0]}\""
    let errors = try DaemonHarness.temporaryDirectory() + "/errors"
    let result = try await withDeadline("`arborctl \(arguments) | head -1` to end", seconds: 20) {
      try await run(
        .name("bash"), arguments: ["-c", script], environment: .inherit.updating(["ARBOR_SOCKET": socket, "ERRORS": errors]),
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 16))
    }
    let lines = result.standardOutput.split(separator: "\n").map(String.init)
    let error = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
    return (lines.last ?? "", lines.first ?? "", error)
  }

  @Test func historyWatchAndEventsEndQuietlyWhenTheReaderGoes() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      // More history than a pipe holds (64 KiB), so that arborctl is still writing when
      // head has gone.
      for _ in 0..<30 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      _ = try await client.batch(Array(repeating: ("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"] as JSONValue), count: 1_000))
      for command in ["history --limit 2000", "watch /", "get /", "status"] {
        let outcome = try await Self.piped(command, socket: daemon.socket)
        #expect(outcome.status == "arborctl exited 0", "arborctl \(command): \(outcome.status), stderr: \(outcome.error)")
        #expect(outcome.error.isEmpty, "arborctl \(command) wrote to stderr: \(outcome.error)")
        #expect(!outcome.firstLine.isEmpty && !outcome.firstLine.hasPrefix("arborctl exited"), "arborctl \(command) printed nothing")
      }
      // `events` prints nothing until an event comes: it ends once head has gone too. The
      // event is sent once arborctl's subscription is at the daemon, not after a guessed
      // delay: on a loaded machine arborctl may take longer than that to start, and an
      // event sent before it subscribed would leave it waiting for good.
      let subscriptions = try await client.call("daemon.status")["subscriptions"]?.intValue ?? 0
      async let events = Self.piped("events", socket: daemon.socket)
      try await eventually("arborctl events to subscribe") {
        try await client.call("daemon.status")["subscriptions"]?.intValue ?? 0 > subscriptions
      }
      // A row's remove button sends an event.
      try await client.call("intent.call", ["target": "/counters/0", "intent": "removeButtonTapped"])
      let outcome = try await events
      #expect(outcome.status == "arborctl exited 0", "arborctl events: \(outcome.status), stderr: \(outcome.error)")
      #expect(outcome.error.isEmpty, "arborctl events wrote to stderr: \(outcome.error)")
    }
  }
}

/// Commands that wait say what they wait for.
@Suite(.startsProcesses) struct ArborctlWaitingTests {
  @Test func eventsAtAPathWhereNothingIsSaysSoAndAWatchThereFails() async throws {
    try await withDaemon { daemon, _ in
      // It waits (for models that may come there), and says so at once; stopped after 2 s.
      let events = try await withDeadline("arborctl events /nope under timeout 2") {
        try await run(
          .name("timeout"), arguments: ["2", ArborctlTests.binary(), "events", "/nope"],
          environment: .inherit.updating(["ARBOR_SOCKET": daemon.socket]), output: .string(limit: 4096), error: .string(limit: 4096))
      }
      #expect(events.standardError.contains("nothing is at /nope now: waiting for events of the models that come there"), "\(events.standardError)")
      let watch = try await ArborctlTests.arborctl(["watch", "/nope"], socket: daemon.socket)
      #expect(watch.status == .exited(1))
      #expect(watch.error.contains("nothing in the state at '/nope'"), "\(watch.error)")
    }
  }
}
