#if HTTP
import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket

/// Closes an inspector WebSocket whose client sends a frame without a mask, with code 1002
/// (protocol error), as RFC 6455 §5.1 asks of a server: a browser always masks, and a mask
/// is what keeps a page's bytes from being read as another protocol by a proxy on the way.
/// The frame is dropped, and so is anything after it.
///
/// The same for a frame with a reserved bit set (no extension is negotiated) or a reserved
/// opcode (§5.2): the connection is failed, and nothing after it is processed (§7.1.7).
/// swift-websocket sends the close for these itself but goes on handing the frames after
/// them to the bridge, which ran them as requests.
///
/// It sits right after the frame decoder. ``Installer`` puts it there when the upgrade
/// completes: before the bytes read during the upgrade are passed on, so the check starts
/// with the first frame.
///
/// ```swift
/// try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly.Installer(logger: logger, peer: peer))
/// ```
final class MaskedFramesOnly: ChannelInboundHandler, RemovableChannelHandler {
  typealias InboundIn = WebSocketFrame
  typealias InboundOut = WebSocketFrame
  typealias OutboundOut = WebSocketFrame

  let logger: Logger
  let peer: String
  private var closing = false

  init(logger: Logger, peer: String) {
    self.logger = logger
    self.peer = peer
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard !closing else { return }
    let frame = unwrapInboundIn(data)
    if let refusal = Self.refusal(of: frame) {
      closing = true
      // The frame's header in the log: a frame read from the wrong offset shows there.
      logger.notice(
        "closed the \(peer): it sent \(refusal.logged) (1002; opcode \(frame.opcode), fin \(frame.fin), \(frame.length) bytes)")
      var payload = context.channel.allocator.buffer(capacity: 40)
      payload.writeInteger(UInt16(1002))
      payload.writeString(refusal.reason)
      let close = WebSocketFrame(fin: true, opcode: .connectionClose, data: payload)
      let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
      context.writeAndFlush(wrapOutboundOut(close)).whenComplete { _ in bound.value.close(promise: nil) }
      return
    }
    context.fireChannelRead(data)
  }

  /// Why a client's frame fails the connection (for the log, and the close's reason); nil
  /// when it may go on.
  static func refusal(of frame: WebSocketFrame) -> (logged: String, reason: String)? {
    guard frame.maskKey != nil else { return ("a frame without a mask", "frames from a client must be masked") }
    guard frame.reservedBits.isEmpty else { return ("a frame with a reserved bit set", "no extension was negotiated") }
    switch frame.opcode {
    case .continuation, .text, .binary, .connectionClose, .ping, .pong: return nil
    default: return ("a frame with a reserved opcode", "a reserved opcode")
    }
  }

  /// Added while the upgrade is decided (after the HTTP handlers); when the upgrade is
  /// complete it puts a ``MaskedFramesOnly`` after the frame decoder and leaves.
  final class Installer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    let logger: Logger
    let peer: String

    init(logger: Logger, peer: String) {
      self.logger = logger
      self.peer = peer
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
      guard let upgrade = event as? HTTPServerUpgradeEvents, case .upgradeComplete = upgrade else {
        context.fireUserInboundEventTriggered(event)
        return
      }
      // The upgrade handler passes on what it buffered only after this event.
      let pipeline = context.pipeline.syncOperations
      do {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<WebSocketFrameDecoder>.self)
        try pipeline.addHandler(MaskedFramesOnly(logger: logger, peer: peer), position: .after(decoder))
      } catch {
        // Without the check the connection is not served.
        logger.error("closed the \(peer): its frame check could not be added: \(error)")
        context.close(promise: nil)
      }
      context.fireUserInboundEventTriggered(event)
      pipeline.removeHandler(context: context, promise: nil)
    }
  }
}
#endif
