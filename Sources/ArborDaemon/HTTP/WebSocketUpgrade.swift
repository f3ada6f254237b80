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
      let remote = channel.remoteAddress?.description ?? "an unknown address"
      switch outcome(for: request, loopbackOnly: loopbackOnly, access: parts.httpAccess) {
      case .notWebSocket:
        return .dontUpgrade
      case .serve(let role, let headers):
        let peer = "WebSocket from \(remote) (\(role))"
        // Frames from the client must be masked (RFC 6455 §5.1): checked from the first one.
        try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly.Installer(logger: parts.logger, peer: peer))
        return .upgrade(headers) { inbound, outbound, _ in
          try await WebSocketBridge.serve(inbound: inbound, outbound: outbound, role: role, peer: peer, parts: parts)
        }
      case .refuse(let closeCode, let reason, let logged, let headers):
        // A close with a code of 4000 + the HTTP status, and the reason; the log has the rest.
        let host = request.authority.map { " (Host \($0.debugDescription))" } ?? " (no Host)"
        parts.logger.notice("refused an inspector WebSocket from \(remote)\(host): \(logged)")
        return .upgrade(headers) { _, outbound, _ in
          try await outbound.close(.unknown(closeCode), reason: reason)
        }
      }
    }
  }
}
#endif
