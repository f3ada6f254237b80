import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `arborctl bridge` (standard input and output to the daemon's socket) and `arborctl
/// --host ssh://…`, which runs it through ssh: against a real daemon, and a real sshd on a
/// loopback port with throwaway keys (``SSHServer``; those tests need root and Debian's
/// openssh-server, and are skipped without them).
@Suite(.startsProcesses, .serialized) struct ArborctlSSHTests {
  static let sshdMissing: Comment = "needs root (sshd logs in as other users) and /usr/sbin/sshd (Debian's openssh-server, in the Makefile's APT_PACKAGES)"

  /// Runs `arborctl arguments…` with `environment` over the inherited one.
  static func arborctl(_ arguments: [String], environment: [String: String?]) async throws -> ArborctlTests.Outcome {
    ProcessSlots.expectHeld("arborctl")
    let updates = Dictionary(uniqueKeysWithValues: environment.compactMap { key, value in Environment.Key(rawValue: key).map { ($0, value) } })
    let result = try await withDeadline("arborctl \(arguments.joined(separator: " "))") {
      try await run(
        .path(FilePath(ArborctlTests.binary())), arguments: Arguments(arguments), environment: .inherit.updating(updates),
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    return .init(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
  }

  /// The JSON lines of an outcome's standard output.
  static func lines(_ outcome: ArborctlTests.Outcome) -> [JSONValue] {
    outcome.output.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
  }

  /// Waits until the daemon has `count` subscriptions (a watch is subscribed).
  static func waitForSubscriptions(_ daemon: DaemonUnderTest, _ count: Int = 1) async throws {
    let connection = try await daemon.connect()
    defer { connection.close() }
    try await eventually("\(count) subscription(s) on the daemon") {
      try await connection.call("daemon.status")["subscriptions"]?.intValue ?? 0 >= count
    }
  }

  /// Whether a child has exited (it is a zombie until it is reaped, or gone).
  static func hasExited(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
  }

  @Test func theBridgeRelaysBothWaysAndExits0WhenInputEndsAnd3WhenTheDaemonGoes() async throws {
    try await withDaemon { daemon, execution in
      let requests = """
        {"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"","intent":"addButtonTapped"}}
        {"jsonrpc":"2.0","id":2,"method":"state.get","params":{"path":"/counters/0/counter/count"}}

        """
      // Standard input ends after two requests: both replies come, then exit 0.
      let clean = try await withDeadline("arborctl bridge with two requests") {
        try await run(
          .path(FilePath(ArborctlTests.binary())), arguments: ["bridge", "--socket", daemon.socket], input: .string(requests),
          output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
      }
      #expect(clean.terminationStatus == .exited(0), "\(clean.standardError)")
      let replies = clean.standardOutput.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
      #expect(replies.map { $0["id"] } == [1, 2], "\(clean.standardOutput)")
      #expect(replies.last?["result"]?["value"] == 0 && replies.last?["result"]?["revision"] == 1, "\(clean.standardOutput)")

      // A watch through the bridge, standard input still open: the daemon killed, exit 3.
      let watched = try await run(
        .path(FilePath(ArborctlTests.binary())), arguments: ["bridge", "--socket", daemon.socket], input: .inputWriter,
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 20)
      ) { bridge in
        _ = try await bridge.standardInputWriter.write(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":""}}"# + "\n")
        try await Self.waitForSubscriptions(daemon)
        try execution.send(signal: .kill)
        try await withDeadline("the bridge to end after the daemon's kill") {
          while !Self.hasExited(bridge.processIdentifier.value) { try await Task.sleep(for: .milliseconds(20)) }
        }
        try? await bridge.standardInputWriter.finish()
      }
      #expect(watched.terminationStatus == .exited(3), "\(watched.standardError)")
      #expect(watched.standardError.contains("the daemon at \(daemon.socket) closed the connection"), "\(watched.standardError)")
      #expect(watched.standardOutput.contains(#""subscription":1"#), "the watch's reply came through: \(watched.standardOutput)")
    }
  }

  @Test(.enabled(if: SSHServer.available, sshdMissing))
  func getCallAndWatchGoThroughSSHAndTheWatchOutlivesTheDaemonsKill() async throws {
    try await withSSHServer { server in
      let directory = try DaemonHarness.temporaryDirectory()
      let host = server.address(path: directory + "/d.sock")
      let environment = server.environment
      let (watch, _) = try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, execution in
        let added = try await Self.arborctl(["--host", host, "call", "/", "addButtonTapped"], environment: environment)
        #expect(added.status == .exited(0) && added.json == ["result": nil, "revision": 1], "\(added.output)\(added.error)\n\(server.log)")
        // The socket given by --socket beside --host is the remote one; $ARBOR_HOST works as --host.
        var viaVariable = environment
        viaVariable["ARBOR_HOST"] = server.address()
        let count = try await Self.arborctl(["get", "/counters/0/counter/count", "--socket", daemon.socket], environment: viaVariable)
        #expect(count.json == ["revision": 1, "value": 0], "\(count.output)\(count.error)")

        let watch = Task { try await Self.arborctl(["--host", host, "watch", "/counters/0/counter/count", "--count", "3"], environment: environment) }
        try await Self.waitForSubscriptions(daemon)
        let driver = try await daemon.connect()
        defer { driver.close() }
        try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        // Whether or not revision 2 reached the watch before the kill, it resumes from the
        // last revision it printed (the journal has it: --fsync always).
        try execution.send(signal: .kill)
        return watch
      }
      try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, _ in
        let driver = try await daemon.connect()
        defer { driver.close() }
        // The watch comes back through a new ssh (the remote bridge waits for the socket).
        try await Self.waitForSubscriptions(daemon)
        try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        let outcome = try await withDeadline("the watch through ssh") { try await watch.value }
        let values = Self.lines(outcome)
        #expect(outcome.status == .exited(0), "\(outcome.error)")
        #expect(values.map { $0["revision"] } == [1, 2, 3] && values.map { $0["value"] } == [0, 1, 2], "\(outcome.output)")
        #expect(outcome.error.contains("reconnecting"), "\(outcome.error)")
        let state = try await driver.call("state.get", ["path": "/counters/0/counter/count"])
        #expect(values.last?["value"] == state["value"], "the watch ends at the state's value")
      }
    }
  }

  /// `bench` runs on the daemon's machine: ssh runs the remote `arborctl bench` with the
  /// same options, and its figures and exit status come back.
  @Test(.enabled(if: SSHServer.available, sshdMissing))
  func benchRunsOnTheDaemonsMachineThroughSSH() async throws {
    try await withSSHServer { server in
      let directory = try DaemonHarness.temporaryDirectory()
      try await withDaemon(directory: directory) { daemon, _ in
        let host = server.address(path: daemon.socket)
        let bench = try await Self.arborctl(["--host", host, "bench", "-c", "2", "-n", "200", "--json"], environment: server.environment)
        #expect(bench.status == .exited(0), "\(bench.output)\(bench.error)\n\(server.log)")
        #expect(bench.json?["requests"] == 200, "\(bench.output)")
        // The remote bench's own failure (its check call names a row that is not there), its
        // message and its exit status come back.
        let wrong = try await Self.arborctl(
          ["--host", host, "bench", "-n", "10", "--target", "/counters/9/counter", "--intent", "incrementTapped"], environment: server.environment)
        #expect(wrong.status == .exited(1) && wrong.error.contains("/counters/9"), "\(wrong.output)\(wrong.error)")
      }
    }
  }

  @Test(.enabled(if: SSHServer.available, sshdMissing))
  func aRemoteUserWithoutTheOperatorRoleIsRefusedAnIntent() async throws {
    let uid = try await SSHServer.throwawayUser()
    try await withSSHServer { server in
      _ = try await withDaemon(arguments: ["--readers", "uid:\(uid)"]) { daemon, _ in
        // The socket is 0660 root's; the role, not the file's mode, is what this tests.
        chmod(daemon.socket, 0o666)
        let host = server.address(user: "arbor-ssh-test", path: daemon.socket)
        let read = try await Self.arborctl(["--host", host, "get", "/counters"], environment: server.environment)
        #expect(read.status == .exited(0), "a reader reads: \(read.error)\n\(server.log.suffix(2_000))")
        let refused = try await Self.arborctl(["--host", host, "call", "/", "addButtonTapped"], environment: server.environment)
        #expect(refused.status == .exited(5), "\(refused.output)\(refused.error)")
        #expect(refused.error.contains("operator"), "the refusal names the role: \(refused.error)")
      }
    }
  }

  @Test(.enabled(if: SSHServer.available, sshdMissing))
  func aDroppedSSHConnectionExits3AndNamesTheHost() async throws {
    try await withSSHServer { server in
      _ = try await withDaemon { daemon, _ in
        let host = server.address(path: daemon.socket)
        let watch = Task { try await Self.arborctl(["--host", host, "watch", "/", "--no-reconnect"], environment: server.environment) }
        try await Self.waitForSubscriptions(daemon)
        let sessions = server.sessions()
        #expect(!sessions.isEmpty, "sshd has the watch's session")
        for session in sessions { kill(session, SIGKILL) }
        let dropped = try await withDeadline("the watch to end after its ssh session was killed") { try await watch.value }
        #expect(dropped.status == .exited(3), "\(dropped.error)")
        #expect(dropped.error.contains("the connection to \(host) ended: "), "\(dropped.error)")

        // No sshd on the port: ssh's own words, exit 3.
        var elsewhere = server.environment
        elsewhere["ARBOR_SSH_COMMAND"] = (server.environment["ARBOR_SSH_COMMAND"] ?? nil).map { $0 + " -o ConnectTimeout=5" }
        let closed = try await Self.arborctl(["--host", "ssh://root@127.0.0.1:1", "status"], environment: elsewhere)
        #expect(closed.status == .exited(3), "\(closed.error)")
        #expect(closed.error.contains("cannot connect to ssh://root@127.0.0.1:1: ssh: connect to host 127.0.0.1 port 1"), "\(closed.error)")
      }
    }
  }
}
