#if HTTP
import HTTPTypes

extension WebSocketUpgrade {
  /// What a request to the listener gets, decided from its head alone (HTTP types only, so
  /// that it is tested and fuzzed without a daemon).
  enum Outcome: Equatable {
    /// Not the WebSocket's path: the router answers it.
    case notWebSocket
    /// Upgraded and served with `role`; `headers` go with the upgrade's reply.
    case serve(Role, headers: HTTPFields)
    /// Upgraded and closed at once with `closeCode` (4000 + the HTTP status) and `reason`
    /// (at most ``maxCloseReasonBytes``); `logged` is what the log says besides.
    case refuse(closeCode: UInt16, reason: String, logged: String, headers: HTTPFields)
  }

  /// A close frame's reason: its payload is at most 125 bytes with the 2 of its code
  /// (RFC 6455 §5.5); a longer one makes a browser fail the connection (1006) without the
  /// code or the reason.
  static let maxCloseReasonBytes = 123

  /// The WebSocket's path is `/rpc`, with or without a query; the host first (a rebound
  /// name learns nothing more, not even whether a token works), then the Origin and the
  /// token (``HTTPAccess``). The subprotocol `arbor.jsonrpc` is echoed when asked for.
  static func outcome(for request: HTTPRequest, loopbackOnly: Bool, access: HTTPAccess) -> Outcome {
    guard request.path == "/rpc" || request.path?.hasPrefix("/rpc?") == true else { return .notWebSocket }
    var headers = HTTPFields()
    if HTTPAccess.asksForSubprotocol(request) { headers[.secWebSocketProtocol] = HTTPAccess.subprotocol }
    let role =
      loopbackOnly && !LoopbackHost.matches(request)
      ? .failure(.init(status: .misdirectedRequest, message: "this listener answers loopback names only"))
      : access.role(for: request)
    switch role {
    case .success(let role):
      return .serve(role, headers: headers)
    case .failure(let refusal):
      return .refuse(
        closeCode: UInt16(4000 + refusal.status.code), reason: closeReason(refusal.message), logged: refusal.logged ?? refusal.message,
        headers: headers)
    }
  }

  /// `message` cut to ``maxCloseReasonBytes`` of UTF-8, at a character's end.
  static func closeReason(_ message: String) -> String {
    guard message.utf8.count > maxCloseReasonBytes else { return message }
    var reason = ""
    var count = 0
    for character in message {
      count += character.utf8.count
      guard count <= maxCloseReasonBytes else { break }
      reason.append(character)
    }
    return reason
  }
}
#endif
