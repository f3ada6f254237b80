#if HTTP
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1

/// Answers a request the HTTP decoder refuses (headers over the limits, a malformed
/// request line) with 431 or 400 and closes the connection. Without it, a request refused
/// before the WebSocket upgrade was decided would leave its connection open, unanswered,
/// until the idle timeout.
struct BadRequestCloser<Inner: ServerChildChannel>: ServerChildChannel {
  let inner: Inner
  /// The daemon's logger (the one passed to `setup` is the framework's, critical only).
  let logger: Logger

  func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Inner.Value> {
    let value = inner.setup(channel: channel, logger: logger)
    // The inner channel's handlers are in place (set up synchronously on the channel's
    // loop): this one goes after the decoder, where its errors arrive.
    do {
      try channel.pipeline.syncOperations.addHandler(Handler(logger: self.logger))
    } catch {
      logger.debug("the bad-request handler could not be added: \(error)")
    }
    return value
  }

  func handle(value: Inner.Value, logger: Logger) async {
    await inner.handle(value: value, logger: logger)
  }

  final class Handler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias InboundOut = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    let logger: Logger
    private var answered = false

    init(logger: Logger) { self.logger = logger }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
      guard let parserError = error as? HTTPParserError, !answered else {
        context.fireErrorCaught(error)
        return
      }
      // A request cut short by the end of the connection (the client went away, or
      // ``HTTPConnectionGuard`` closed it): nobody to answer.
      if parserError == .invalidEOFState {
        answered = true
        logger.debug("an HTTP connection ended in the middle of a request")
        context.close(promise: nil)
        return
      }
      answered = true
      let status: HTTPResponseStatus = parserError == .headerOverflow ? .requestHeaderFieldsTooLarge : .badRequest
      logger.notice("refused an HTTP request: \(parserError)")
      var headers = HTTPHeaders()
      headers.add(name: "Connection", value: "close")
      headers.add(name: "Content-Length", value: "0")
      context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
      let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
      context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in bound.value.close(promise: nil) }
    }
  }
}
#endif
