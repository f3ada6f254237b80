import HTTPTypes
import Testing

@testable import ArborDaemon

/// What a request to the listener gets from its head alone (`WebSocketUpgrade.outcome`),
/// no listener: the cases the `upgrade` fuzz target checks, written out.
@Suite struct WebSocketUpgradeOutcomeTests {
  static func request(path: String = "/rpc", host: String? = "127.0.0.1:9090", _ fields: HTTPFields = [:]) -> HTTPRequest {
    HTTPRequest(method: .get, scheme: nil, authority: host, path: path, headerFields: fields)
  }

  /// Found by the `upgrade` target: the refusal of a foreign Origin echoed the Origin in its
  /// close reason, and an Origin of 40 bytes or more made a close frame longer than the 125
  /// bytes RFC 6455 §5.5 allows a control frame (a browser then fails the connection with
  /// 1006, and the page never learns why).
  @Test func aLongForeignOriginIsRefusedWithAReasonThatFitsACloseFrame() {
    let origin = "http://" + String(repeating: "a", count: 200) + ".example"
    let outcome = WebSocketUpgrade.outcome(for: Self.request([.origin: origin]), loopbackOnly: true, access: HTTPAccess(tokenFile: nil))
    guard case .refuse(let code, let reason, let logged, _) = outcome else {
      Issue.record("served: \(outcome)")
      return
    }
    #expect(code == 4403)
    #expect(reason.utf8.count <= WebSocketUpgrade.maxCloseReasonBytes)
    #expect(reason.contains("not this listener's own"))
    #expect(!reason.contains(origin), "the reason echoes the Origin")
    #expect(logged.contains(origin), "the log names the Origin")
  }

  @Test func aReasonIsCutAtACharactersEnd() {
    #expect(WebSocketUpgrade.closeReason("short") == "short")
    let long = String(repeating: "é", count: 100)  // 200 bytes
    let cut = WebSocketUpgrade.closeReason(long)
    #expect(cut.utf8.count == 122)
    #expect(cut == String(repeating: "é", count: 61))
    let exact = String(repeating: "x", count: 123)
    #expect(WebSocketUpgrade.closeReason(exact) == exact)
  }

  @Test func onlyTheWebSocketsPathIsUpgraded() {
    let access = HTTPAccess(tokenFile: nil)
    for path in ["/rpc", "/rpc?", "/rpc?token=x"] {
      #expect(WebSocketUpgrade.outcome(for: Self.request(path: path), loopbackOnly: true, access: access) == .serve(.reader, headers: [:]), "\(path)")
    }
    for path in ["/", "/rpc/", "//rpc", "/RPC", "/%72pc", "/rpc#x", "/rpcx", "/metrics"] {
      #expect(WebSocketUpgrade.outcome(for: Self.request(path: path), loopbackOnly: true, access: access) == .notWebSocket, "\(path)")
    }
  }

  @Test func aReboundNameIsRefusedBeforeItsTokenIsLookedAt() {
    let fields: HTTPFields = [.secWebSocketProtocol: "arbor.jsonrpc, arbor.token.not-the-token-0123456789", .origin: "http://attacker.example"]
    for access in [HTTPAccess(tokenFile: nil), HTTPAccess(tokenFile: "/nonexistent/token")] {
      let outcome = WebSocketUpgrade.outcome(for: Self.request(host: "127.0.0.1.nip.io", fields), loopbackOnly: true, access: access)
      #expect(
        outcome
          == .refuse(
            closeCode: 4421, reason: "this listener answers loopback names only", logged: "this listener answers loopback names only",
            headers: [.secWebSocketProtocol: "arbor.jsonrpc"]))
    }
  }
}
