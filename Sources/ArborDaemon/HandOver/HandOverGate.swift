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

  private var isClosed: Bool
  /// What came in after the gate closed.
  private(set) var held: [UInt8] = []
  /// What the previous process had read and not handled; passed on once the gate opens.
  private var input: [UInt8]
  /// A read the pipeline asked for while the gate was closed.
  private var readPending = false
  private var context: ChannelHandlerContext?

  /// A gate that is open, or (for a connection handed over, whose watches are registered
  /// with the others' before any of them is served) closed until ``open()``.
  init(input: [UInt8] = [], closed: Bool = false) {
    self.input = input
    self.isClosed = closed
  }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }

  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  /// Reads nothing more from the socket; what arrives from a read under way is kept.
  func close() { isClosed = true }

  /// Serves the connection: what the previous process had read first, then the socket's.
  func open() {
    guard isClosed, let context else { return }
    isClosed = false
    let bytes = input + held
    input = []
    held = []
    if !bytes.isEmpty {
      context.fireChannelRead(wrapInboundOut(context.channel.allocator.buffer(bytes: bytes)))
      context.fireChannelReadComplete()
    }
    if readPending {
      readPending = false
      context.read()
    }
  }

  func channelActive(context: ChannelHandlerContext) {
    context.fireChannelActive()
    // Before the socket's first read: the channel reads once this event has gone through.
    guard !isClosed, !input.isEmpty else { return }
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
    guard !isClosed else {
      readPending = true
      return
    }
    context.read()
  }
}
