import NIOCore

/// The first handler of a connection being handed to the next process, nearest the socket:
/// added at a hand-over's pause (``ConnectionHandOver/pause(_:)``), or at the start of a
/// connection the previous process handed over.
///
/// Open, it passes everything on. At a hand-over it is closed: it asks the socket for
/// nothing more (what the client sends after that waits in the kernel for the next
/// process) and keeps what a read already under way brings (``held``). In the next
/// process a handed-over connection's gate starts closed, and ``open()`` passes on first
/// what the previous process had read but not handled, then the socket's.
///
/// ```swift
/// try pipeline.addHandler(HandOverGate(handedOver: handed.input))
/// ```
final class HandOverGate: ChannelDuplexHandler, RemovableChannelHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private var isClosed: Bool
  /// What came in while the gate was closed; for a handed-over connection, what the
  /// previous process had read and not handled comes first.
  private(set) var held: [UInt8]
  /// A read the pipeline asked for while the gate was closed.
  private var readPending = false
  private var context: ChannelHandlerContext?

  /// An open gate, or with `input` (a connection handed over, whose watches are registered
  /// with the others' before any of them is served) a closed one holding that input until
  /// ``open()``.
  init(handedOver input: [UInt8]? = nil) {
    self.isClosed = input != nil
    self.held = input ?? []
  }

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }

  func handlerRemoved(context: ChannelHandlerContext) { self.context = nil }

  /// Reads nothing more from the socket; what arrives from a read under way is kept.
  func close() { isClosed = true }

  /// Serves the connection: what it held first, then the socket's.
  func open() {
    guard isClosed, let context else { return }
    isClosed = false
    let bytes = held
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
