import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import Subprocess
import SystemPackage
import Testing

/// Socket activation with systemd's own tool: `systemd-socket-activate` listens, and on the
/// first connection starts the daemon with the listening socket as file descriptor 3
/// (`$LISTEN_FDS`, `$LISTEN_PID`, `$LISTEN_FDNAMES`). The daemon serves on it instead of
/// binding its own, and leaves it in place when it stops.
@Suite struct SocketActivationTests {
  @Test func theDaemonServesOnTheSocketItIsGiven() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let socket = directory + "/activated.sock"
    let ownSocket = directory + "/own.sock"
    let logPath = directory + "/daemon.log"
    let log = try FileDescriptor.open(
      FilePath(logPath), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
    let result = try await run(
      .path("/usr/bin/systemd-socket-activate"),
      arguments: ["--listen=" + socket, "--fdname=counterfactd", DaemonHarness.binary(), "--socket", ownSocket, "--state-dir", directory + "/state"],
      input: .none, output: .discarded, error: .fileDescriptor(log, closeAfterSpawningProcess: true)
    ) { execution -> JSONValue in
      do {
        // The first connection starts the daemon; the request waits in the socket's queue.
        let client = try await withDeadline("a connection to the activated socket", seconds: 30) {
          while true {
            if let connection = try? await ArborConnection.connect(to: socket) { return connection }
            try await Task.sleep(for: .milliseconds(20))
          }
        }
        let status = try await withDeadline("daemon.status on the activated socket", seconds: 30) {
          try await client.call("daemon.status")
        }
        try execution.send(signal: .terminate)
        return status
      } catch {
        try? execution.send(signal: .kill)
        throw error
      }
    }
    let logged = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    #expect(result.closureResult["name"] == "counterfactd", "\(logged)")
    #expect(result.terminationStatus == .exited(0), "\(logged)")
    #expect(logged.contains("on the socket systemd passed (counterfactd)"), "\(logged)")
    #expect(!FileManager.default.fileExists(atPath: ownSocket), "it bound no socket of its own")
    #expect(FileManager.default.fileExists(atPath: socket), "the passed socket is systemd's to remove")
  }
}
