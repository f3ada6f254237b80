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

/// `arborctl bridge` (standard input and output to the daemon's socket), against a real
/// daemon.
@Suite(.startsProcesses, .serialized) struct ArborctlSSHTests {
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
}
