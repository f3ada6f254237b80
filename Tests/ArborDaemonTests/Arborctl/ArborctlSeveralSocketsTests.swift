import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// arborctl given several sockets (`--socket` repeated, or `$ARBOR_SOCKET` with colons):
/// the daemon that answers serves; none answering is the usual error, naming them all.
@Suite(.startsProcesses) struct ArborctlSeveralSocketsTests {
  @Test func theDaemonThatAnswersServesWhenAnotherIsGone() async throws {
    try await withDaemon { daemon, _ in
      let gone = daemon.directory + "/gone.sock"
      let status = try await ArborctlTests.arborctl(["--socket", gone, "--socket", daemon.socket, "status", "--json"], socket: nil)
      #expect(status.status == .exited(0), "\(status.error)")
      #expect(status.output.contains("\"root\":\"AppModel\""), "\(status.output)")
      let call = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: "\(gone):\(daemon.socket)")
      #expect(call.status == .exited(0), "\(call.error)")
      #expect(call.output.contains("\"revision\":1"), "\(call.output)")
      let none = try await ArborctlTests.arborctl(["--socket", gone, "--socket", gone + "2", "status"], socket: nil)
      #expect(none.status != .exited(0))
      #expect(none.error.contains("cannot connect to \(gone), \(gone)2"), "every socket is named: \(none.error)")
    }
  }
}
