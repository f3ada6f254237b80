import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// The inspector's WebSocket (`/rpc`) of a real `counterfactd`: the daemon's own JSON-RPC,
/// read-only without a token, operator with the token, and its refusals.
@Suite(.startsProcesses) struct InspectorWebSocketTests {
  static let token = "s3cret-token-for-the-inspector-0123456789"

  @Test func speaksTheDaemonsProtocolAndSeesLiveChanges() async throws {
    try await withHTTPDaemon { daemon, port in
      let client = try await daemon.connect()
      try await WebSocketTestClient.with(port: port) { socket in
        #expect(socket.upgrade.headers["sec-websocket-protocol"] == "arbor.jsonrpc")
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
        let status = try await socket.reply(to: 1)
        #expect((status["result"] as? [String: Any])?["name"] as? String == "counterfactd")
        // Pretty-printed JSON across lines is one request.
        try await socket.send("{\"jsonrpc\": \"2.0\",\n \"id\": 2,\n \"method\": \"state.watch\",\n \"params\": {\"path\": \"/counters\"}\n}")
        let watch = try await socket.reply(to: 2)
        #expect(((watch["result"] as? [String: Any])?["value"] as? [Any])?.isEmpty == true)
        try await client.call("intent.call", ["intent": "addButtonTapped"])
        let changed = try await socket.receiveJSON(what: "state.changed after an intent on the Unix socket")
        #expect(changed["method"] as? String == "state.changed")
        #expect((changed["params"] as? [String: Any])?["revision"] as? Int == 1)
        // A batch is one message, answered by one.
        try await socket.send(
          #"[{"jsonrpc":"2.0","id":3,"method":"state.get","params":{"path":"/counters/0/counter/count"}},{"jsonrpc":"2.0","id":4,"method":"nope"}]"#)
        let batch = try await socket.receive(what: "the batch's reply")
        let replies = try JSONSerialization.jsonObject(with: Data(batch.payload)) as? [[String: Any]]
        #expect(replies?.count == 2)
        #expect((replies?.first?["result"] as? [String: Any])?["value"] as? Int == 0)
        #expect(((replies?.last?["error"] as? [String: Any])?["code"] as? Int) == -32601)
        // Malformed JSON gets the same error as on the socket.
        try await socket.send("{not json")
        let parseError = try await socket.receiveJSON(what: "the parse error")
        #expect((parseError["error"] as? [String: Any])?["code"] as? Int == -32700)
        try await socket.close()
      }
    }
  }

  @Test func withoutATokenTheInspectorIsReadOnly() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
        let refused = try await socket.reply(to: 1)
        let error = refused["error"] as? [String: Any]
        #expect((error?["data"] as? [String: Any])?["name"] as? String == "org.arbor.PermissionDenied")
        #expect((error?["message"] as? String)?.contains("reader role") == true)
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 0)
    }
  }

  @Test func theTokenGivesTheOperatorRoleAsASubprotocolOrABearer() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        #expect(socket.upgrade.headers["sec-websocket-protocol"] == "arbor.jsonrpc")
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
        #expect((try await socket.reply(to: 1)["result"] as? [String: Any])?["revision"] as? Int == 1)
        // Operator, not admin: a restore is refused.
        try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"state.restore","params":{"record":{}}}"#)
        let restore = try await socket.reply(to: 2)
        #expect(((restore["error"] as? [String: Any])?["data"] as? [String: Any])?["required"] as? String == "admin")
      }
      try await WebSocketTestClient.with(port: port, protocols: [], headers: [("Authorization", "Bearer \(Self.token)")]) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
        #expect((try await socket.reply(to: 1)["result"] as? [String: Any])?["revision"] as? Int == 2)
      }
      #expect(try await daemon.connect().call("state.get")["revision"] == 2)
    }
  }

  @Test func aWrongTokenIsClosedWithItsReasonNotDowngraded() async throws {
    try await withHTTPDaemon(arguments: ["--http-token-file", try Self.tokenFile()]) { daemon, port in
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token.not-the-right-token-at-all"]) { socket in
        let close = try await socket.receive(what: "the close of a wrong token")
        #expect(close.closeCode == 4401)
        #expect(close.closeReason == "wrong token")
      }
      #expect(daemon.log.contains("refused an inspector WebSocket"))
    }
    // A token offered to a daemon that has none is refused too, and says why.
    try await withHTTPDaemon { _, port in
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + Self.token]) { socket in
        let close = try await socket.receive(what: "the close of a token to a daemon without a token file")
        #expect(close.closeCode == 4401)
        #expect(close.closeReason.contains("no --http-token-file"))
      }
    }
  }

  @Test func aPageOfAnotherSiteCannotOpenIt() async throws {
    try await withHTTPDaemon { _, port in
      try await WebSocketTestClient.with(port: port, headers: [("Origin", "http://attacker.example")]) { socket in
        let close = try await socket.receive(what: "the close of a foreign origin")
        #expect(close.closeCode == 4403)
        #expect(close.closeReason.contains("not this listener's own"))
      }
      // The listener's own origin is served.
      try await WebSocketTestClient.with(port: port, headers: [("Origin", "http://127.0.0.1:\(port)")]) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 1)["result"] != nil)
      }
    }
  }

  @Test func anOversizedMessageClosesOnlyItsWebSocket() async throws {
    try await withHTTPDaemon(arguments: ["--max-line-bytes", "20000"]) { daemon, port in
      let client = try await daemon.connect()
      try await WebSocketTestClient.with(port: port) { socket in
        let padding = String(repeating: "x", count: 100_000)
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{"p":""# + padding + #""}}"#)
        let close = try await socket.receive(what: "the close of an oversized message")
        #expect(close.opcode == 8)
        #expect(close.closeCode == 1009)
      }
      #expect(try await client.call("state.get")["revision"] == 0)
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 1)["result"] != nil)
      }
    }
  }

  @Test func aWebSocketThatNeverReadsIsClosedAndOthersAreServed() async throws {
    try await withHTTPDaemon(arguments: ["--max-output-bytes", "200000"]) { daemon, port in
      let client = try await daemon.connect()
      for _ in 0..<20 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      try await WebSocketTestClient.with(port: port, receiveBuffer: 4096) { socket in
        // Requests whose replies it never reads: far more than the socket buffers and the
        // daemon's --max-output-bytes hold.
        let request = #"{"jsonrpc":"2.0","id":1,"method":"state.get"}"#
        // On a slow machine the daemon may close the connection before all are sent.
        for _ in 0..<2_000 {
          do { try await socket.send(request) } catch { break }
        }
        try await eventually("the daemon to close the WebSocket's connection (1 client left)", seconds: 30) {
          try await client.call("daemon.status")["clients"] == 1
        }
        #expect(daemon.log.contains("unread"))
      }
      // Everyone else is served throughout.
      #expect(try await client.call("state.get")["revision"] == 20)
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 1)["result"] != nil)
      }
    }
  }

  static func tokenFile() throws -> String {
    let path = try DaemonHarness.temporaryDirectory() + "/token"
    try (token + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    return path
  }
}
