#if HTTP
import HTTPTypes
import Hummingbird
import NIOCore

/// The listener's plain HTTP routes: the inspector page, `/metrics`, `/healthz`,
/// `/readyz`, and the answer to a plain GET of the WebSocket's path.
enum HTTPRoutes {
  static func router(parts: DaemonParts, loopbackOnly: Bool) -> Router<BasicRequestContext> {
    let router = Router()
    if loopbackOnly { router.middlewares.add(LoopbackHostCheck()) }
    router.get("/") { _, _ in
      Response(
        status: .ok,
        headers: [
          .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
          .contentSecurityPolicy: InspectorPage.contentSecurityPolicy,
          .xContentTypeOptions: "nosniff",
        ],
        body: .init(byteBuffer: ByteBuffer(string: InspectorPage.html)))
    }
    router.get("/metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: parts.handler.metricsText())))
    }
    router.get("/healthz") { _, _ in text(.ok, "ok") }
    router.get("/readyz") { _, _ in
      if let reason = parts.notReadyReason() { return text(.serviceUnavailable, "not ready: \(reason)") }
      return text(.ok, "ready")
    }
    // Reached by a plain GET (an upgrade is handled before the router).
    router.get("/rpc") { _, _ in
      text(.upgradeRequired, "/rpc is a WebSocket that speaks the daemon's JSON-RPC: connect with a WebSocket client")
    }

    return router
  }

  static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
    Response(
      status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
  }
}
#endif
