import ArborLocking
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle

/// The opt-in HTTP listener of `--http`, on the daemon's own event loops (Hummingbird 2):
///
/// - `GET /`: the inspector, one page (``InspectorPage``);
/// - `GET /rpc` upgraded to a WebSocket: the daemon's JSON-RPC, one message per request,
///   reply or notification (``WebSocketBridge``); read-only without a token;
/// - `GET /metrics`: the Prometheus text format (``ServiceMetrics``);
/// - `GET /healthz`: 200 while the process serves HTTP at all;
/// - `GET /readyz`: 200 once the Unix socket listens, while the journal accepts writes and
///   the daemon is not stopping; 503 with the reason otherwise.
///
/// It stops after the socket server on graceful shutdown, so that health checks are
/// answered (not ready) while the daemon drains.
struct HTTPListener: Service, CustomStringConvertible {
  var description: String { "HTTPListener(\(address))" }

  let parts: DaemonParts
  let address: HTTPAddress

  /// The longest header field and all the header fields of a request, in bytes.
  static let maxHeaderFieldBytes = 16 << 10
  static let maxHeaderBytes = 64 << 10

  func run() async throws {
    let parts = self.parts
    let address = self.address
    let loopbackOnly = address.isLoopback
    let router = Router()
    if loopbackOnly { router.middlewares.add(LoopbackHostCheck()) }
    router.get("/") { _, _ in
      Response(
        status: .ok,
        headers: [
          .contentType: "text/html; charset=utf-8", .cacheControl: "no-store",
          .contentSecurityPolicy:
            "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'",
          .xContentTypeOptions: "nosniff",
        ],
        body: .init(byteBuffer: ByteBuffer(string: InspectorPage.html)))
    }
    router.get("/metrics") { _, _ in
      Response(
        status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(bytes: parts.metricsExposition())))
    }
    router.get("/healthz") { _, _ in Self.text(.ok, "ok") }
    router.get("/readyz") { _, _ in
      if let reason = parts.notReadyReason() { return Self.text(.serviceUnavailable, "not ready: \(reason)") }
      return Self.text(.ok, "ready")
    }
    // Reached by a plain GET (an upgrade is handled before the router).
    router.get("/rpc") { _, _ in
      Self.text(.upgradeRequired, "/rpc is a WebSocket that speaks the daemon's JSON-RPC: connect with a WebSocket client")
    }

    let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
      http1: .init(
        idleTimeout: .seconds(60),
        httpDecoderConfiguration: .init(
          maxHeaderFieldSize: Self.maxHeaderFieldBytes, maxHeaderListSize: Self.maxHeaderBytes, maxHeaderFieldCount: 100)),
      ws: .init(maxFrameSize: max(1 << 14, min(parts.commandLine.maxLineBytes, 1 << 24)), autoPing: .enabled(timePeriod: .seconds(30))))
    let upgrade: @Sendable (HTTPRequest, any Channel, Logger) throws -> ShouldUpgradeResult<
      WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>
    > = { request, channel, _ in
      guard request.path == "/rpc" || request.path?.hasPrefix("/rpc?") == true else { return .dontUpgrade }
      var headers = HTTPFields()
      if HTTPAccess.asksForSubprotocol(request) { headers[.secWebSocketProtocol] = HTTPAccess.subprotocol }
      let remote = channel.remoteAddress?.description ?? "an unknown address"
      var access = parts.httpAccess.role(for: request)
      if loopbackOnly, !LoopbackHost.matches(request.authority) {
        access = .failure(.init(status: .misdirectedRequest, message: "this listener answers loopback names only"))
      }
      switch access {
      case .success(let role):
        let peer = "WebSocket from \(remote) (\(role))"
        return .upgrade(headers) { inbound, outbound, _ in
          try await WebSocketBridge.serve(inbound: inbound, outbound: outbound, role: role, peer: peer, parts: parts)
        }
      case .failure(let refusal):
        // A browser's WebSocket never sees the status of a refused upgrade, only a close:
        // the refusal is a close with a code of 4000 + the HTTP status, and its reason.
        parts.logger.notice("refused an inspector WebSocket from \(remote): \(refusal.message)")
        return .upgrade(headers) { _, outbound, _ in
          try await outbound.close(.unknown(UInt16(4000 + refusal.status.code)), reason: refusal.message)
        }
      }
    }
    let application = Application(
      router: router,
      server: HTTPServerBuilder { responder in
        BadRequestCloser(inner: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: configuration, shouldUpgrade: upgrade), logger: parts.logger)
      },
      configuration: .init(address: .hostname(address.host, port: address.port), serverName: nil),
      onServerRunning: { channel in
        let port = channel.localAddress?.port ?? address.port
        let url = "http://\(HTTPAddress(host: address.host, port: port))/"
        parts.handler.httpURL.withLock { $0 = url }
        parts.logger.info("the inspector and /metrics are at \(url)")
      },
      eventLoopGroupProvider: .shared(parts.eventLoops),
      logger: Self.frameworkLogger(parts.logger)
    )
    do {
      try await application.run()
    } catch {
      throw DaemonStartError("--http \(address) cannot be served: \(error)")
    }
  }

  /// Hummingbird's own log: only what is critical. It logs a client's bad request as an
  /// error; the listener logs what it refuses itself, at notice, and a failure to bind is
  /// thrown.
  private static func frameworkLogger(_ logger: Logger) -> Logger {
    let handler = FixedLevelLogHandler(inner: logger.handler, logLevel: .critical)
    return Logger(label: logger.label) { _ in handler }
  }

  private static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
    Response(
      status: status, headers: [.contentType: "text/plain; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: message + "\n")))
  }
}

/// On a loopback listener, a request must name a loopback host: a page of another site
/// that a DNS name was pointed back at this machine (DNS rebinding) is refused.
struct LoopbackHostCheck<Context: RequestContext>: RouterMiddleware {
  func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
    guard LoopbackHost.matches(request.head.authority) else {
      return Response(
        status: .misdirectedRequest, headers: [.contentType: "text/plain; charset=utf-8"],
        body: .init(byteBuffer: ByteBuffer(string: "this listener answers loopback names only (localhost, 127.0.0.1, [::1])\n")))
    }
    return try await next(request, context)
  }
}

extension LoopbackHostCheck where Context == BasicRequestContext {
  init() {}
}

/// Names of this machine's loopback interface, as a `Host` header gives them.
enum LoopbackHost {
  /// `localhost`, `127.x.x.x` or `[::1]`, with or without a port.
  static func matches(_ host: String?) -> Bool {
    guard var host = host?.lowercased() else { return false }
    if host.hasPrefix("[") {
      return host.hasPrefix("[::1]")
    }
    if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
    return host == "localhost" || host.hasPrefix("127.")
  }
}
