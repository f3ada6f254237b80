import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Roles over the real socket: a client run as another user (with `setpriv`) is mapped by
/// its peer credentials.
@Suite(.startsProcesses) struct PeerCredentialTests {
  static let canSwitchUsers = getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
    && FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")

  /// Runs one request as uid 65534 (nobody), in the daemon's group so that the socket's
  /// 0660 mode lets it connect, and returns the reply line.
  func callAsNobody(_ socket: String, _ request: String) async throws -> JSONValue {
    let script = """
      import socket, sys
      s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1])
      s.sendall((sys.argv[2] + "\\n").encode()); print(s.makefile().readline().strip())
      """
    let result = try await withDeadline("a request as uid 65534") {
      try await run(
        .path("/usr/bin/setpriv"),
        arguments: ["--reuid=65534", "--regid=\(getgid())", "--clear-groups", "/usr/bin/python3", "-c", script, socket, request],
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus == .exited(0), "\(result.standardError)")
    return try JSONValue(parsing: result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
  }

  @Test(.enabled(if: canSwitchUsers, "needs root and setpriv"))
  func aForeignUserIsRefusedByDefault() async throws {
    try await withDaemon { daemon, _ in
      let reply = try await callAsNobody(daemon.socket, #"{"jsonrpc":"2.0","id":1,"method":"state.get"}"#)
      #expect(reply["error"]?["data"]?["name"] == "org.arbor.PermissionDenied")
      #expect(reply["error"]?["message"] == "state.get needs the reader role; this connection has no role (the daemon does not know this user)")
    }
  }

  @Test(.enabled(if: canSwitchUsers, "needs root and setpriv"))
  func aReaderMayReadButNotCallIntents() async throws {
    try await withDaemon(arguments: ["--readers", "uid:65534"]) { daemon, _ in
      let read = try await callAsNobody(daemon.socket, #"{"jsonrpc":"2.0","id":1,"method":"state.get"}"#)
      #expect(read["result"]?["revision"] == 0)
      let call = try await callAsNobody(
        daemon.socket, #"{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
      #expect(call["error"]?["data"]?["name"] == "org.arbor.PermissionDenied")
      #expect(call["error"]?["data"]?["required"] == "operator")
      #expect(try await daemon.connect().call("state.get")["revision"] == 0, "the refused intent did not run")
    }
  }

  @Test(.enabled(if: canSwitchUsers, "needs root and setpriv"))
  func anOperatorMayCallIntentsButNotRestore() async throws {
    try await withDaemon(arguments: ["--operators", "uid:65534"]) { daemon, _ in
      let call = try await callAsNobody(
        daemon.socket, #"{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
      #expect(call["result"]?["revision"] == 1)
      let restore = try await callAsNobody(
        daemon.socket, #"{"jsonrpc":"2.0","id":3,"method":"state.restore","params":{"record":{}}}"#)
      #expect(restore["error"]?["data"]?["required"] == "admin")
    }
  }
}
