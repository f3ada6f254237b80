import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// What the `upgrade` and `wsmessage` fuzz targets found, against a real daemon: a message
/// over `--max-line-bytes` in one frame, a close reason too long for a close frame, and
/// frames after a reserved bit or opcode.
@Suite(.startsProcesses) struct WebSocketLimitsTests {
  static let token = "limits-token-for-the-inspector-0123456789"

  /// Under a limit below the 16 KiB frame limit, a message in one frame is bounded by the
  /// frame limit only (swift-websocket checks the limit when it joins fragments): it went
  /// to the daemon, whose framer refused the line, and the WebSocket closed with 1000
  /// after an error reply instead of 1009.
  @Test func aMessageInOneFrameOverASmallLimitIsClosedWith1009() async throws {
    try await withHTTPDaemon(arguments: ["--max-line-bytes", "1000"]) { daemon, port in
      let padding = String(repeating: "x", count: 4_000)
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{"p":""# + padding + #""}}"#)
        let close = try await socket.receive(what: "the close of a message over the limit in one frame")
        #expect(close.opcode == 8, "got opcode \(close.opcode): \(close.text)")
        #expect(close.closeCode == 1009)
      }
      // Fragmented, the same.
      try await WebSocketTestClient.with(port: port) { socket in
        let bytes = Array(#"{"jsonrpc":"2.0","id":2,"method":"daemon.status","params":{"p":""#.utf8) + Array(padding.utf8) + Array(#""}}"#.utf8)
        try await socket.sendFrame(opcode: 1, payload: Array(bytes[..<500]), final: false)
        try await socket.sendFrame(opcode: 0, payload: Array(bytes[500...]))
        let close = try await socket.receive(what: "the close of a fragmented message over the limit")
        #expect(close.closeCode == 1009)
      }
      // A message within the limit is served, and so are the daemon's other clients.
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":3,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 3)["result"] != nil)
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
    }
  }

  /// Found by the `upgrade` target: a foreign Origin's refusal echoed the Origin in its
  /// close reason, so that an Origin of 40 bytes or more made a close frame longer than a
  /// control frame may be (125 bytes, RFC 6455 §5.5); a browser fails such a connection
  /// with 1006 and the page never sees 4403.
  @Test func aLongForeignOriginGetsACloseFrameABrowserAccepts() async throws {
    try await withHTTPDaemon { daemon, port in
      let origin = "http://a-page-of-another-site-with-a-long-name.example.com:8443"
      try await WebSocketTestClient.with(port: port, headers: [("Origin", origin)]) { socket in
        let close = try await socket.receive(what: "the close of a long foreign Origin")
        #expect(close.closeCode == 4403)
        #expect(close.payload.count <= 125, "a close frame of \(close.payload.count) bytes")
        #expect(close.closeReason.contains("not this listener's own"))
      }
      try await eventually("the Origin in the log") { daemon.log.contains(origin) }
    }
  }

  /// A reserved bit (no extension is negotiated) or a reserved opcode fails the connection
  /// with 1002 and nothing after it is run: swift-websocket sent the close but went on
  /// handing the following frames to the bridge, which ran them (RFC 6455 §7.1.7: after
  /// failing the connection nothing more is processed).
  @Test func aFrameWithAReservedBitOrOpcodeFailsTheConnectionAndNothingAfterItRuns() async throws {
    let tokenFile = try DaemonHarness.temporaryDirectory() + "/token"
    try (Self.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
    let addButton = #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#
    try await withHTTPDaemon(arguments: ["--http-token-file", tokenFile]) { daemon, port in
      // A reserved non-control opcode, a reserved control opcode, a reserved bit (RSV1 on
      // a text frame is the first byte 0xC1: fin, RSV1, opcode 1).
      for (first, what) in [(UInt8(0x83), "opcode 3"), (0x8B, "opcode 11"), (0xC1, "RSV1")] {
        try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
          // Both frames in one write: the daemon closes at the first, so a second write
          // may find the connection closed; together, the request is surely read behind
          // the refused frame.
          try await socket.sendBytes(
            WebSocketTestClient.frame(opcode: first, payload: Array("x".utf8))
              + WebSocketTestClient.frame(opcode: 1, payload: Array(addButton.utf8)))
          let close = try await socket.receive(what: "the close of a frame with \(what)")
          #expect(close.opcode == 8, "\(what): got opcode \(close.opcode): \(close.text)")
          #expect(close.closeCode == 1002, "\(what)")
        }
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0, "a request after a refused frame ran")
      #expect(daemon.log.contains("reserved"))
    }
  }
}
