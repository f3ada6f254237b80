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

/// Socket activation with systemd's own tool: `systemd-socket-activate` listens, and on the
/// first connection starts the daemon with the listening socket as file descriptor 3
/// (`$LISTEN_FDS`, `$LISTEN_PID`, `$LISTEN_FDNAMES`). The daemon serves on it instead of
/// binding its own, and leaves it in place when it stops.
@Suite(.startsProcesses) struct SocketActivationTests {
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
        let status = try await Self.statusOnceActivated(socket)
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

  /// A second socket unit for the HTTP listener (`FileDescriptorName=http`): the daemon
  /// serves the inspector and `/metrics` on it, binding nothing itself; a service with
  /// `PrivateNetwork=yes` can still be reached on the host's loopback this way.
  @Test func theHTTPListenerServesOnTheSocketNamedHTTP() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let socket = directory + "/activated.sock"
    let port = try freeLoopbackPort()
    let logPath = directory + "/daemon.log"
    let log = try FileDescriptor.open(
      FilePath(logPath), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
    let result = try await run(
      .path("/usr/bin/systemd-socket-activate"),
      arguments: [
        "--listen=" + socket, "--listen=127.0.0.1:\(port)", "--fdname=counterfactd:http", DaemonHarness.binary(), "--socket",
        directory + "/own.sock", "--state-dir", directory + "/state",
      ],
      input: .none, output: .discarded, error: .fileDescriptor(log, closeAfterSpawningProcess: true)
    ) { execution -> (JSONValue, HTTPTestClient.Reply) in
      do {
        // The two listeners start side by side: the socket's first request can be answered
        // before the HTTP listener has bound (seen beside two busy loops), so the status is
        // asked again until it names the HTTP address, within the wait's deadline.
        let status = try await withDeadline("daemon.status to name the HTTP listener's address") {
          var status = try await Self.statusOnceActivated(socket)
          let client = ArborClient(socketPath: socket)
          while status["http"] == nil {
            try await Task.sleep(for: .milliseconds(20))
            status = try await client.call("daemon.status")
          }
          return status
        }
        let health = try await HTTPTestClient.get(port: port, "/healthz")
        try execution.send(signal: .terminate)
        return (status, health)
      } catch {
        try? execution.send(signal: .kill)
        throw error
      }
    }
    let logged = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    #expect(result.closureResult.0["http"] == .string("http://127.0.0.1:\(port)/"), "\(logged)")
    #expect(result.closureResult.1.status == 200)
    #expect(result.terminationStatus == .exited(0), "\(logged)")
    #expect(logged.contains("the inspector and /metrics are at http://127.0.0.1:\(port)/ (the socket systemd passed)"), "\(logged)")
  }
}

extension SocketActivationTests {
  /// `daemon.status` from the daemon behind a socket systemd listens on: the first
  /// connection starts it, and the request waits in the socket's queue.
  static func statusOnceActivated(_ socket: String) async throws -> JSONValue {
    let client = try await withDeadline("a connection to the activated socket", seconds: 30) {
      while true {
        if let connection = try? await ArborConnection.connect(to: socket) { return connection }
        try await Task.sleep(for: .milliseconds(20))
      }
    }
    return try await withDeadline("daemon.status on the activated socket", seconds: 30) {
      try await client.call("daemon.status")
    }
  }
}

/// A TCP port on 127.0.0.1 that nothing listens on now (the system's pick for port 0).
func freeLoopbackPort() throws -> Int {
  let (descriptor, port) = try boundLoopbackSocket()
  close(descriptor)
  return port
}

/// A TCP socket bound to 127.0.0.1 on a port the system picked, and the port; closed on
/// exec unless it is meant for a child (a socket systemd would pass).
func boundLoopbackSocket(closeOnExec: Bool = false) throws -> (descriptor: Int32, port: Int) {
  let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | (closeOnExec ? Int32(SOCK_CLOEXEC.rawValue) : 0), 0)
  guard descriptor >= 0 else { throw HarnessError("socket() failed: \(errno)") }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  address.sin_port = 0
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
      guard bind(descriptor, pointer, length) == 0 else { return -1 }
      return getsockname(descriptor, pointer, &length)
    }
  }
  guard bound == 0 else {
    close(descriptor)
    throw HarnessError("bind or getsockname failed: \(errno)")
  }
  return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
}
