import Logging
import NIOCore

/// Writes what a connection's ``Outbox`` holds whenever the socket can take more: the
/// pipeline's first handler, nearest the socket. Replies and notifications queued by
/// anyone (the request stage, the watch hub, the journal's durability callbacks) are
/// gathered into one write per wake-up; a client that leaves more than
/// `--max-output-bytes` unread is closed.
///
/// It also ends the connection's place in the daemon when the channel goes: its outbox
/// closes, its watches are removed from the hub, and the registry forgets it.
final class OutboxWriter: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private enum State {
    /// Serving. Writes carry no promise: a finished outbox closes after one last empty
    /// write's, which completes once every write before it has.
    case open
    case ended
  }

  let outbox: Outbox
  private let id: Int
  private let hub: WatchHub
  private let registry: ConnectionRegistry
  private let logger: Logger
  private let maxOutputBytes: Int
  /// The writer as the outbox's wake-ups reach it, on the connection's event loop.
  private let wakeTarget: NIOLoopBoundBox<OutboxWriter?>
  private var state = State.open
  private var context: ChannelHandlerContext?

  init(id: Int, eventLoop: any EventLoop, options: DaemonOptions, hub: WatchHub, registry: ConnectionRegistry, logger: Logger) {
    self.id = id
    self.hub = hub
    self.registry = registry
    self.logger = logger
    self.maxOutputBytes = options.maxOutputBytes
    let target = NIOLoopBoundBox<OutboxWriter?>.makeEmptyBox(valueType: OutboxWriter.self, eventLoop: eventLoop)
    self.wakeTarget = target
    // One closure for every wake-up, made here: a wake-up allocates nothing of its own.
    let write: @Sendable () -> Void = { target.value?.write() }
    self.outbox = Outbox(watchLimit: max(1, options.watchQueue), byteLimit: max(1, options.maxOutputBytes)) {
      eventLoop.execute(write)
    }
  }

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    wakeTarget.value = self
    registry.add(id: id, outbox: outbox, channel: context.channel)
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    end()
    wakeTarget.value = nil
    self.context = nil
  }

  func channelInactive(context: ChannelHandlerContext) {
    end()
    context.fireChannelInactive()
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    logger.debug("connection \(id) failed: \(error)")
    context.close(promise: nil)
  }

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { write() }
    context.fireChannelWritabilityChanged()
  }

  private func end() {
    guard case .open = state else { return }
    state = .ended
    outbox.close()
    hub.removeAll(of: outbox)
    registry.remove(id: id)
  }

  /// Writes everything the outbox holds, until it is empty (or finished, or closed), or the
  /// socket is full: then the writability change comes back here and the outbox keeps the
  /// rest (counted against its limit).
  func write() {
    while case .open = state, let context {
      // A full socket waits for its writability to change, unless the outbox overflowed
      // meanwhile: a client that reads nothing would never change it.
      guard context.channel.isWritable || outbox.isClosed else { return }
      switch outbox.take() {
      case .nothing:
        return
      case .closed:
        // What it left unread was dropped: give it back.
        MemoryTrim.request()
        logger.notice("connection \(id) closed: it left more than \(maxOutputBytes) bytes of output unread")
        context.close(promise: nil)
        return
      case .finished:
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(capacity: 0)), promise: written)
        written.futureResult.whenComplete { _ in channel.close(promise: nil) }
        return
      case .items(let items):
        write(items, context: context)
      }
    }
  }

  /// Replies and notifications gathered into one buffer; a buffer item goes out as it is,
  /// between them.
  private func write(_ items: [Outbox.Item], context: ChannelHandlerContext) {
    var size = 0
    for case .bytes(let bytes, _) in items { size += bytes.count }
    var gathered = context.channel.allocator.buffer(capacity: max(256, size))
    var written = 0
    for item in items {
      switch item {
      case .bytes(let bytes, _):
        gathered.writeBytes(bytes)
      case .resync(let subscription):
        if let line = hub.resyncLine(subscription: subscription) { gathered.writeBytes(line) }
      case .buffer(let buffer):
        if gathered.readableBytes > 0 {
          written += gathered.readableBytes
          context.write(wrapOutboundOut(gathered), promise: nil)
          gathered.clear()
        }
        written += buffer.readableBytes
        context.write(wrapOutboundOut(buffer), promise: nil)
      }
    }
    if gathered.readableBytes > 0 {
      written += gathered.readableBytes
      context.write(wrapOutboundOut(gathered), promise: nil)
    }
    guard written > 0 else { return }
    guard written >= MemoryTrim.largeBytes else {
      context.flush()
      return
    }
    // Once a large write is out, its buffers are freed: give them back.
    let out = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: out)
    out.futureResult.whenComplete { _ in MemoryTrim.request() }
  }
}
