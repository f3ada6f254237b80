#if HTTP
import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Whether a request to the listener becomes an inspector WebSocket, with which role; a
/// refused one is upgraded and closed at once with its reason (a browser's WebSocket never
/// sees the status of a refused upgrade, only a close).
enum WebSocketUpgrade {
  typealias Decision = ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>>

  static func decide(parts: DaemonParts, loopbackOnly: Bool) -> @Sendable (HTTPRequest, any Channel, Logger) throws -> Decision {
    { request, channel, _ in
      guard request.path == "/rpc" || request.path?.hasPrefix("/rpc?") == true else { return .dontUpgrade }
      var headers = HTTPFields()
      if HTTPAccess.asksForSubprotocol(request) { headers[.secWebSocketProtocol] = HTTPAccess.subprotocol }
      let remote = channel.remoteAddress?.description ?? "an unknown address"
      // The host first: a rebound name learns nothing more, not even whether a token works.
      let access =
        loopbackOnly && !LoopbackHost.matches(request)
        ? .failure(.init(status: .misdirectedRequest, message: "this listener answers loopback names only"))
        : parts.httpAccess.role(for: request)
      switch access {
      case .success(let role):
        let peer = "WebSocket from \(remote) (\(role))"
        // Frames from the client must be masked (RFC 6455 §5.1): checked from the first one.
        try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly.Installer(logger: parts.logger, peer: peer))
        return .upgrade(headers) { inbound, outbound, _ in
          try await WebSocketBridge.serve(inbound: inbound, outbound: outbound, role: role, peer: peer, parts: parts)
        }
      case .failure(let refusal):
        // A close with a code of 4000 + the HTTP status, and the reason; the log has the rest.
        let host = request.authority.map { " (Host \($0.debugDescription))" } ?? " (no Host)"
        parts.logger.notice("refused an inspector WebSocket from \(remote)\(host): \(refusal.logged ?? refusal.message)")
        return .upgrade(headers) { _, outbound, _ in
          try await outbound.close(.unknown(UInt16(4000 + refusal.status.code)), reason: refusal.message)
        }
      }
    }
  }
}
#endif
