import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Starting and stopping: state and revision survive a clean restart; a live daemon on the
/// same socket is refused; a socket left by a killed daemon is replaced.
@Suite(.startsProcesses) struct RestartTests {
  @Test func aCleanRestartKeepsStateAndRevision() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let (before, status) = try await withDaemon(directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      let state = try await client.call("state.get")
      try execution.send(signal: .terminate)
      return state
    }
    #expect(status == .exited(0))
    let (after, _) = try await withDaemon(directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      let state = try await client.call("state.get")
      #expect(daemon.log.contains("restored AppModel at revision 2"))
      return state
    }
    #expect(after == before)
    #expect(after["revision"] == 2)
  }

  @Test func sigintStopsCleanlyToo() async throws {
    let (_, status) = try await withDaemon { daemon, execution in
      _ = try await daemon.connect()
      try execution.send(signal: .interrupt)
    }
    #expect(status == .exited(0))
  }

  @Test func aSecondDaemonOnALiveSocketIsRefusedWithAClearMessage() async throws {
    try await withDaemon { daemon, _ in
      let second = try await withDeadline("the second daemon to exit") {
        try await run(
          .path(.init(DaemonHarness.binary())),
          arguments: ["--socket", daemon.socket, "--state-dir", daemon.directory + "/other"],
          output: .discarded, error: .string(limit: 1 << 16))
      }
      #expect(second.terminationStatus != .exited(0))
      #expect(second.standardError.contains("another daemon is serving on \(daemon.socket)"), "\(second.standardError)")
      // Refused for the socket before anything was created in its state directory.
      #expect(!FileManager.default.fileExists(atPath: daemon.directory + "/other"), "the refused daemon created its state directory")
      let client = try await daemon.connect()
      #expect(try await client.call("daemon.status")["name"] == "counterfactd", "the first daemon still serves")
    }
  }

  @Test func aSocketLeftByAKilledDaemonIsReplaced() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let (_, killed) = try await withDaemon(directory: directory) { daemon, execution in
      _ = try await daemon.connect()
      try execution.send(signal: .kill)
    }
    #expect(killed == .signaled(9))
    #expect(FileManager.default.fileExists(atPath: directory + "/d.sock"), "kill -9 leaves the socket file")
    let (name, _) = try await withDaemon(directory: directory) { daemon, _ in
      try await daemon.connect().call("daemon.status")["name"]
    }
    #expect(name == "counterfactd")
  }
}
