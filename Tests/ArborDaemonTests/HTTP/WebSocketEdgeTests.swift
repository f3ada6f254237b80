import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// The inspector WebSocket's edges against a real daemon: what an unauthenticated client
/// is told when the token cannot be checked, credentials that are there but empty, and
/// frames RFC 6455 says a server must refuse.
@Suite(.startsProcesses) struct WebSocketEdgeTests {
  static let token = "edge-token-for-the-inspector-0123456789"
  static let addButton = #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#

  @Test func anUnreadableTokenFileSaysWrongTokenOnlyAndLogsTheRest() async throws {
    let tokenFile = try Self.tokenFile()
    try await withHTTPDaemon(arguments: ["--http-token-file", tokenFile]) { daemon, port in
      // The file goes away while the daemon runs (it is read at each connection).
      try FileManager.default.removeItem(atPath: tokenFile)
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        let close = try await socket.receive(what: "the close of a token that cannot be checked")
        #expect(close.closeCode == 4401)
        #expect(close.closeReason == "wrong token")
        #expect(!close.closeReason.contains("/"), "the reason shows a path: \(close.closeReason)")
      }
      // The log says why, for the operator.
      try await eventually("the refusal's cause in the log") { daemon.log.contains(tokenFile) }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
    }
  }

  @Test func anEmptyBearerOrAnotherSchemeIsRefusedNotDowngraded() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      for authorization in ["Bearer ", "Bearer", "bearer  ", "Basic dXNlcjpwYXNz", "Bearer \(Self.token)x"] {
        let close: (Int?, String) = try await WebSocketTestClient.with(
          port: port, protocols: ["arbor.jsonrpc"], headers: [("Authorization", authorization)]
        ) { socket in
          let frame = try await socket.receive(what: "the close of Authorization: \(authorization)")
          return (frame.closeCode, frame.closeReason)
        }
        #expect(close.0 == 4401, "Authorization: \(authorization.debugDescription) got \(close)")
        #expect(close.1 == "wrong token", "Authorization: \(authorization.debugDescription) got \(close)")
      }
      // An empty subprotocol token too.
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token."]) { socket in
        let close = try await socket.receive(what: "the close of an empty subprotocol token")
        #expect(close.closeCode == 4401)
      }
      // Without any credential: the reader, as before.
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 2)["result"] != nil)
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
    }
  }

  @Test func anUnmaskedFrameIsClosedWith1002AndNotRun() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        try await socket.sendFrame(opcode: 1, payload: Array(Self.addButton.utf8), masked: false)
        let frame = try await socket.receive(what: "the close of an unmasked frame")
        #expect(frame.closeCode == 1002, "got opcode \(frame.opcode): \(frame.text)")
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
      #expect(daemon.log.contains("without a mask"))
      // A masked one is served.
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        try await socket.send(Self.addButton)
        #expect(try await socket.reply(to: 1)["result"] != nil)
      }
    }
  }

  @Test func invalidUTF8InATextFrameIsClosedWith1007AndNotRun() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      // A valid intent call but for one byte that is not UTF-8, inside a string it ignores.
      let bytes = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"},"x":""#.utf8) + [0xFF, 0xFE]
        + Array(#""}"#.utf8)
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        try await socket.sendFrame(opcode: 1, payload: bytes)
        let frame = try await socket.receive(what: "the close of a text frame that is not UTF-8")
        #expect(frame.closeCode == 1007, "got opcode \(frame.opcode): \(frame.text)")
      }
      // Split across two frames, the bad byte in the second.
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        try await socket.sendFrame(opcode: 1, payload: Array(bytes[..<20]), final: false)
        try await socket.sendFrame(opcode: 0, payload: Array(bytes[20...]))
        let frame = try await socket.receive(what: "the close of a fragmented text message that is not UTF-8")
        #expect(frame.closeCode == 1007, "got opcode \(frame.opcode): \(frame.text)")
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
    }
  }

  static func tokenFile() throws -> String {
    let path = try DaemonHarness.temporaryDirectory() + "/token"
    try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
