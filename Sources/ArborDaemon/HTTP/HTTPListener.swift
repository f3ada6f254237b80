#if HTTP
import ArborLocking
import ArborSystemd
import HTTPTypes
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The opt-in HTTP listener of `--http` (or of a socket systemd passed, named `http`), on
/// the daemon's own event loops, with Hummingbird 2's router, HTTP/1 channel and
/// WebSocket upgrade:
///
/// - `GET /`: the inspector, one page (``InspectorPage``);
/// - `GET /rpc` upgraded to a WebSocket: the daemon's JSON-RPC, one message per request,
///   reply or notification (``WebSocketBridge``); read-only without a token;
/// - `GET /metrics`: the Prometheus text format (``ServiceMetrics``);
/// - `GET /healthz`: 200 while the process serves HTTP at all;
/// - `GET /readyz`: 200 once the Unix socket listens, while the journal accepts writes and
///   the daemon is not stopping; 503 with the reason otherwise.
///
/// The listening socket is bound here (``KeptHTTPSocket``, which keeps it across a
/// restart), or adopted from systemd (`FileDescriptorName=http` in a socket unit of its
/// own): Hummingbird's `Application` binds only addresses it is given, so the accept loop
/// is this one, and each connection is Hummingbird's child channel. It stops after the socket server on graceful shutdown, so that health checks
/// are answered (not ready) while the daemon drains; then it closes the connections left.
struct HTTPListener: Service, CustomStringConvertible {
  var description: String { "HTTPListener(\(address.map(\.description) ?? "adopted socket"))" }

  let parts: DaemonParts
  /// Where to listen; nil with an adopted socket.
  let address: HTTPAddress?
  /// The socket systemd passed, named `http`.
  let adopted: ListenSockets.Socket?
  let allowRemote: Bool

  /// The longest header field and all the header fields of a request, in bytes.
  static let maxHeaderFieldBytes = 16 << 10
  static let maxHeaderBytes = 64 << 10
  /// How long a connection has for its first request's head (``HTTPConnectionGuard``).
  static let headTimeout = TimeAmount.seconds(10)
  /// How long a keep-alive connection may wait between requests (Hummingbird's idle timeout).
  static let idleTimeout = TimeAmount.seconds(15)

  func run() async throws {
    let parts = self.parts
    let logger = parts.logger
    let framework = Self.frameworkLogger(logger)
    let (server, child) = try await bind(framework: framework)
    let local = server.channel.localAddress
    let host = local?.ipAddress ?? address?.host ?? "127.0.0.1"
    let listening = HTTPAddress(host: host, port: local?.port ?? address?.port ?? 0)
    if !listening.isLoopback && !allowRemote {
      try? await server.channel.close()
      throw DaemonStartError(
        "the HTTP socket systemd passed listens on \(listening), not a loopback address; set http-allow-remote to serve it there")
    }
    let url = "http://\(listening)/"
    parts.handler.httpURL.withLock { $0 = url }
    logger.info("the inspector and /metrics are at \(url)\(adopted == nil ? "" : " (the socket systemd passed)")")

    let connections = LockedState<[ObjectIdentifier: any Channel]>([:])
    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        do {
          try await server.executeThenClose { inbound in
            for try await value in inbound {
              let channel = value.channel
              connections.withLock { $0[ObjectIdentifier(channel)] = channel }
              group.addTask {
                await child.handle(value: value, logger: framework)
                connections.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(channel)) }
              }
            }
          }
        } catch {
          logger.notice("the HTTP listener stopped accepting: \(error)")
        }
        // Stopping: the connections left (idle keep-alives; the WebSockets ended with their
        // daemon connections) are closed, so that the group ends.
        for channel in connections.withLock({ Array($0.values) }) { channel.close(promise: nil) }
      }
    } onGracefulShutdown: {
      server.channel.close(promise: nil)
    }
  }

  typealias Child = BadRequestCloser<HTTP1WebSocketUpgradeChannel>

  /// Binds `--http`'s address, or adopts systemd's socket; with the child channel that
  /// serves every connection.
  private func bind(framework: Logger) async throws -> (NIOAsyncChannel<Child.Value, Never>, Child) {
    let parts = self.parts
    let loopbackOnly = address?.isLoopback ?? !allowRemote
    let responder = HTTPRoutes.router(parts: parts, loopbackOnly: loopbackOnly).buildResponder()
    let respond: HTTPChannelHandler.Responder = { request, writer, channel in
      let context = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: framework))
      let response: Response
      do {
        response = try await responder.respond(to: request, context: context)
      } catch {
        response = HTTPRoutes.text(.internalServerError, "the request failed: \(error)")
      }
      try await writer.write(response: response.head, body: response.body)
    }
    let configuration = HTTP1WebSocketUpgradeChannel.Configuration(
      http1: .init(
        idleTimeout: Self.idleTimeout,
        httpDecoderConfiguration: .init(
          maxHeaderFieldSize: Self.maxHeaderFieldBytes, maxHeaderListSize: Self.maxHeaderBytes, maxHeaderFieldCount: 100)),
      // A text message that is not UTF-8 is closed with 1007, as RFC 6455 §8.1 asks (the
      // socket refuses the same bytes with a parse error): never repaired and run.
      ws: .init(
        maxFrameSize: max(1 << 14, min(parts.commandLine.maxLineBytes, 1 << 24)), autoPing: .enabled(timePeriod: .seconds(30)),
        validateUTF8: true))
    let child = BadRequestCloser(
      inner: HTTP1WebSocketUpgradeChannel(
        responder: respond, configuration: configuration, shouldUpgrade: WebSocketUpgrade.decide(parts: parts, loopbackOnly: loopbackOnly)),
      logger: parts.logger)
    let bootstrap = ServerBootstrap(group: parts.eventLoops)
      .serverChannelOption(.backlog, value: 256)
      .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
      .serverChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptGate(http: true, logger: parts.logger)) }
      }
      .childChannelOption(.allowRemoteHalfClosure, value: true)
    let accept: @Sendable (any Channel) -> EventLoopFuture<Child.Value> = { channel in
      Self.admit(channel, parts: parts)
      return child.setup(channel: channel, logger: framework)
    }
    do {
      if let adopted {
        return (try await bootstrap.bind(adopted.descriptor, childChannelInitializer: accept), child)
      }
      guard let address else { throw DaemonStartError("the HTTP listener has neither an address nor a socket") }
      // Made here, and kept across a restart (``KeptHTTPSocket``).
      let descriptor = try KeptHTTPSocket.listener(for: address, backlog: 256, notifier: parts.notifier, logger: parts.logger)
      return (try await bootstrap.bind(descriptor, childChannelInitializer: accept), child)
    } catch {
      throw DaemonStartError("--http \(address.map(\.description) ?? "(the socket systemd passed)") cannot be served: \(error)")
    }
  }

  /// Serves a new connection within the HTTP connections' limits (``DescriptorBudget``'s
  /// share, and `--max-connections`), and puts its ``HTTPConnectionGuard`` first: a
  /// connection over the limits is answered 503 and closed, one served has
  /// ``headTimeout`` for its first request's head.
  private static func admit(_ channel: any Channel, parts: DaemonParts) {
    let budget = DescriptorBudget.shared
    let maxConnections = parts.live.withLock { $0.maxConnections }
    let peer = "HTTP from \(channel.remoteAddress?.description ?? "an unknown address")"
    let admitted = budget.admitHTTP(limit: maxConnections, peer: peer, logger: parts.logger)
    if admitted { channel.closeFuture.whenComplete { _ in budget.releaseHTTP() } }
    let refusal = admitted ? nil : "\(budget.held.httpServed) are open"
    do {
      try channel.pipeline.syncOperations.addHandler(HTTPConnectionGuard(refusal: refusal, headTimeout: headTimeout))
    } catch {
      channel.close(promise: nil)
    }
  }

  /// Hummingbird's own log: only what is critical. It logs a client's bad request as an
  /// error; the listener logs what it refuses itself, at notice, and a failure to bind is
  /// thrown. The level is one of its own: setting `logLevel` on a copy of the daemon's
  /// logger would change the level every copy shares.
  private static func frameworkLogger(_ logger: Logger) -> Logger {
    let handler = SharedLevelLogHandler(inner: logger.handler, shared: SharedLogLevel(.critical))
    return Logger(label: logger.label) { _ in handler }
  }
}
#endif
