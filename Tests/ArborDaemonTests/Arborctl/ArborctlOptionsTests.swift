import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The connection options before the command, as `kubectl --context` and `redis-cli -s`
/// take theirs, and `/` as the root for every path.
@Suite(.startsProcesses) struct ArborctlOptionsTests {
  @Test func connectionOptionsMayComeBeforeTheCommand() async throws {
    try await withDaemon { daemon, _ in
      // No $ARBOR_SOCKET: the socket comes from the option only.
      for arguments in [
        ["--socket", daemon.socket, "status"], ["--socket=\(daemon.socket)", "--timeout", "5", "--json", "status"],
        ["--timeout=5", "--socket", daemon.socket, "get", "/"], ["--socket", daemon.socket, "snapshot", "save", "-"],
      ] {
        let outcome = try await ArborctlTests.arborctl(arguments, socket: nil)
        #expect(outcome.status == .exited(0), "arborctl \(arguments.joined(separator: " ")): \(outcome.error)")
        #expect(outcome.json != nil, "arborctl \(arguments.joined(separator: " ")) printed \(outcome.output.prefix(200))")
      }
      // After the command, as before.
      let after = try await ArborctlTests.arborctl(["status", "--socket", daemon.socket], socket: nil)
      #expect(after.json?["name"] == "counterfactd")
      // A mistake is still a usage error.
      let wrong = try await ArborctlTests.arborctl(["--socket"], socket: nil)
      #expect(wrong.status == .exited(2), "\(wrong.error)")
    }
  }

  @Test func slashIsTheRootForEveryPath() async throws {
    try await withDaemon { daemon, _ in
      let root = try await ArborctlTests.arborctl(["get", "/"], socket: daemon.socket)
      let absent = try await ArborctlTests.arborctl(["get"], socket: daemon.socket)
      #expect(root.status == .exited(0), "\(root.error)")
      #expect(root.json != nil && root.json == absent.json)
      let at = try await ArborctlTests.arborctl(["at", "0", "/"], socket: daemon.socket)
      #expect(at.status == .exited(0), "\(at.error)")
    }
  }

  @Test func aWrongSocketIsExplainedWithoutInternals() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    _ = FileManager.default.createFile(atPath: directory + "/plain", contents: Data())
    let cases: [(String, String)] = [
      (directory + "/thermostatd.sock", "there is no such file. Is thermostatd running?"),
      (directory, "it is a directory, not a socket"),
      (directory + "/plain", "it is not a socket"),
    ]
    for (path, says) in cases {
      let outcome = try await ArborctlTests.arborctl(["status", "--socket", path, "--timeout", "0.5"], socket: nil)
      #expect(outcome.status == .exited(3))
      #expect(outcome.error.contains("cannot connect to \(path): \(says)"), "\(outcome.error)")
      #expect(!outcome.error.contains("errno") && !outcome.error.contains("descriptor:"), "internals in: \(outcome.error)")
    }
  }

  /// The daemon's --help gives every default of the paths, root's included (a service runs
  /// as root unless its unit says otherwise).
  @Test func theDaemonsHelpGivesThePathsForRootAndForOthers() async throws {
    let help = try await withDeadline("counterfactd --help") {
      try await run(.path(.init(DaemonHarness.binary())), arguments: ["--help"], output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
    }
    let text = help.standardOutput.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    for words in ["/run/arbor for root", "/tmp/arbor-UID for anyone else", "/var/lib/arbor/NAME for root", "~/.local/state/arbor/NAME for anyone else"] {
      #expect(text.contains(words), "counterfactd --help says \(words): \(text.prefix(600))")
    }
  }

  @Test func versionsAndPing() async throws {
    let version = try await ArborctlTests.arborctl(["--version"], socket: nil)
    #expect(version.status == .exited(0))
    #expect(version.output.hasPrefix("arborctl ") && version.output.contains("protocol 1"), "\(version.output)")
    let daemonVersion = try await withDeadline("counterfactd --version") {
      try await run(.path(.init(DaemonHarness.binary())), arguments: ["--version"], output: .string(limit: 4096), error: .string(limit: 4096))
    }
    #expect(daemonVersion.terminationStatus == .exited(0), "\(daemonVersion.standardError)")
    #expect(daemonVersion.standardOutput.hasPrefix("counterfactd (AppModel), Arbor ") && daemonVersion.standardOutput.contains("protocol 1"))
    try await withDaemon { daemon, _ in
      let ping = try await ArborctlTests.arborctl(["ping", "--count", "3"], socket: daemon.socket)
      #expect(ping.status == .exited(0), "\(ping.error)")
      let lines = ping.output.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
      #expect(lines.count == 3)
      #expect(lines.allSatisfy { $0["name"] == "counterfactd" && $0["protocol"] == 1 && ($0["milliseconds"]?.doubleValue ?? -1) >= 0 }, "\(lines)")
      let status = try await daemon.connect().call("daemon.status")
      #expect(status["protocol"] == 1)
    }
    let unreachable = try await ArborctlTests.arborctl(["ping", "--socket", "/nonexistent/arbor.sock"], socket: nil)
    #expect(unreachable.status == .exited(3))
  }
}
