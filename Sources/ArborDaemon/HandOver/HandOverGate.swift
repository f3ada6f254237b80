import NIOCore

/// The first handler of a connection of a daemon that hands its connections to the next
/// process (a service manager keeps descriptors: `$FDSTORE`), nearest the socket.
///
/// Serving, it passes everything on. At a hand-over it is closed: it asks the socket for
/// nothing more (what the client sends after that waits in the kernel for the next
/// process) and keeps what a read already under way brings (``held``). In the next
/// process it passes on first what the previous one had read but not handled
/// (`input`), before anything of the socket's.
///
/// ```swift
/// try pipeline.addHandler(HandOverGate(input: handed.input))
/// ```
final class HandOverGate: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private var isClosed = false
  /// What came in after the gate closed.
  private(set) var held: [UInt8] = []
  /// What the previous process had read and not handled; passed on once the channel is active.
  private var input: [UInt8]

  init(input: [UInt8] = []) {
    self.input = input
  }

  /// Reads nothing more from the socket; what arrives from a read under way is kept.
  func close() { isClosed = true }

  func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    // Before the socket's first read: the channel reads once this event has gone through.
    guard !input.isEmpty else { return }
    let bytes = input
    input = []
    context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: bytes)))
    context.fireChannelReadComplete()
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    guard isClosed else {
      context.fireChannelRead(data)
      return
    }
    let buffer = unwrapInboundIn(data)
    held += buffer.readableBytesView
  }

  func read(context: ChannelHandlerContext) {
    guard !isClosed else { return }
    context.read()
  }
}
