import Logging
import NIOCore

/// The first handler of every HTTP connection, nearest the socket (before Hummingbird's
/// HTTP decoder), that bounds what a connection may hold without a request:
///
/// - a connection over the limits (``DescriptorBudget``: HTTP connections' share, or
///   `--max-connections`) is answered `503 Service Unavailable` and closed at once;
/// - a request head (the request line and its header fields) must be whole within
///   ``HTTPListener/headTimeout`` of the connection's start, however it trickles in (as
///   nginx's `client_header_timeout` and Go's `ReadHeaderTimeout`); past it the connection
///   is answered `408 Request Timeout` and closed. A connection that sends nothing at all
///   is closed the same way.
///
/// Once the first head is whole the guard leaves the pipeline; from then on Hummingbird's
/// idle timeout (``HTTPListener/idleTimeout``) closes a keep-alive connection that sends no
/// further request (a trickling second head included: bytes that are not a whole head do
/// not count as activity), and a WebSocket has its own pings.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(HTTPConnectionGuard(refusal: nil, headTimeout: .seconds(10)))
/// ```
final class HTTPConnectionGuard: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Why the connection is refused; nil when it is admitted.
  private let refusal: String?
  private let headTimeout: TimeAmount
  private var started = false
  /// Refused or timed out: the answer is on its way, and nothing more is read.
  private var answered = false
  private var deadline: Scheduled<Void>?
  /// How much of a head's end (`\n`, then an optional `\r`, then `\n`) was just read.
  private var endProgress = 0

  init(refusal: String?, headTimeout: TimeAmount) {
    self.refusal = refusal
    self.headTimeout = headTimeout
  }

  func handlerAdded(context: ChannelHandlerContext) {
    if context.channel.isActive { start(context: context) }
  }

  func channelActive(context: ChannelHandlerContext) {
    start(context: context)
    context.fireChannelActive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    deadline?.cancel()
    deadline = nil
  }

  private func start(context: ChannelHandlerContext) {
    guard !started else { return }
    started = true
    if let refusal {
      answer(context: context, status: "503 Service Unavailable", body: "the daemon serves no more HTTP connections now (\(refusal)); try again later\n")
      return
    }
    let milliseconds = headTimeout.nanoseconds / 1_000_000
    deadline = context.eventLoop.assumeIsolated().scheduleTask(in: headTimeout) {
      self.deadline = nil
      self.answer(
        context: context, status: "408 Request Timeout",
        body: "the request's head (its line and header fields) did not arrive within \(milliseconds) ms\n")
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    // Refused, or answered 408: what else comes is not read.
    guard !answered else { return }
    let bytes = unwrapInboundIn(data)
    let whole = bytes.withUnsafeReadableBytes { scan($0) }
    context.fireChannelRead(data)
    if whole {
      deadline?.cancel()
      deadline = nil
      context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
  }

  /// Reads `bytes` on from where the last read stopped; true once a head's end is among them.
  private func scan(_ bytes: UnsafeRawBufferPointer) -> Bool {
    for byte in bytes {
      switch (endProgress, byte) {
      case (_, UInt8(ascii: "\n")) where endProgress > 0: return true
      case (_, UInt8(ascii: "\n")): endProgress = 1
      case (1, UInt8(ascii: "\r")): endProgress = 2
      case (_, UInt8(ascii: "\r")) where endProgress == 0: break
      default: endProgress = 0
      }
    }
    return false
  }

  /// Writes a whole response straight to the socket (no HTTP encoder lies between) and
  /// closes the connection once it is written.
  private func answer(context: ChannelHandlerContext, status: String, body: String) {
    answered = true
    let response =
      "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
    context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { _ in bound.value.close(promise: nil) }
  }
}
