import Logging
import NIOCore

/// Writes what a connection's ``Outbox`` holds whenever the socket can take more: the
/// pipeline's first handler, nearest the socket. Replies and notifications queued by
/// anyone (the request stage, the watch hub, the journal's durability callbacks) are
/// gathered into one write per wake-up; a client that leaves more than
/// `--max-output-bytes` unread is closed.
///
/// It also ends the connection's place in the daemon when the channel goes: its outbox
/// closes, its watches are removed from the hub, and the registry forgets it. At a
/// hand-over it gives up what its client has not been sent yet (``takeUnwritten()``).
final class OutboxWriter: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private enum State {
    /// Serving. Writes carry no promise: a finished outbox closes after one last empty
    /// write's, which completes once every write before it has.
    case open
    /// What was unwritten went to the next process: nothing more is written here.
    case handedOver
    case ended
  }

  let outbox: Outbox
  private let id: Int
  /// The connection bridges an inspector WebSocket (``ConnectionRegistry/add(id:outbox:channel:bridged:)``).
  private let bridged: Bool
  private let hub: WatchHub
  private let registry: ConnectionRegistry
  private let logger: Logger
  private let maxOutputBytes: Int
  /// The writer as the outbox's wake-ups reach it, on the connection's event loop.
  private let wakeTarget: NIOLoopBoundBox<OutboxWriter?>
  private var state = State.open
  private var context: ChannelHandlerContext?
  /// What the channel was given and may not have written yet.
  private var unsent = UnsentOutput()

  init(
    id: Int, eventLoop: any EventLoop, options: DaemonOptions, hub: WatchHub, registry: ConnectionRegistry, logger: Logger,
    bridged: Bool = false
  ) {
    self.id = id
    self.bridged = bridged
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
    registry.add(id: id, outbox: outbox, channel: context.channel, bridged: bridged)
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
    if case .ended = state { return }
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
      case .items(var items):
        write(items, context: context)
        outbox.recycle(&items)
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
          give(gathered, context: context)
          gathered = context.channel.allocator.buffer(capacity: 256)
        }
        written += buffer.readableBytes
        give(buffer, context: context)
      }
    }
    if gathered.readableBytes > 0 {
      written += gathered.readableBytes
      give(gathered, context: context)
    }
    guard written > 0 else { return }
    guard written >= MemoryTrim.largeBytes else {
      context.flush()
      if unsent.needsTrim { trimUnsent() }
      // A large reply still on its way is let go of once written, not at the next write,
      // which an idle client may never cause.
      if unsent.bytes >= UnsentOutput.trimBytes { afterWritten(context, trimMemory: false) }
      return
    }
    // Once a large write is out, its buffers are freed: give them back.
    afterWritten(context, trimMemory: true)
  }

  /// Once everything written so far is out: the writer lets go of its copies and, with
  /// `trimMemory`, the freed memory is given back.
  private func afterWritten(_ context: ChannelHandlerContext, trimMemory: Bool) {
    let out = context.eventLoop.makePromise(of: Void.self)
    context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(capacity: 0)), promise: out)
    let target = wakeTarget
    out.futureResult.whenComplete { _ in
      target.value?.trimUnsent()
      if trimMemory { MemoryTrim.request() }
    }
  }

  /// Writes a buffer to the channel, keeping it until the channel has written it.
  private func give(_ buffer: ByteBuffer, context: ChannelHandlerContext) {
    unsent.gave(buffer)
    context.write(wrapOutboundOut(buffer), promise: nil)
  }

  /// Lets go of the buffers the channel has written.
  private func trimUnsent() {
    guard let pending = try? context?.channel.syncOptions?.getOption(.bufferedWritableBytes) else { return }
    unsent.keepLast(pending)
  }

  /// At a hand-over: everything this connection's client was to be sent and has not been
  /// written to its socket, in order (what the channel still buffers, then what the outbox
  /// holds, resyncs built now). Nothing more is written here afterwards. Nil when the
  /// outbox was closed (the client left too much unread) or the channel's buffer cannot be
  /// told: then the connection is not handed over.
  ///
  /// ```swift
  /// let output = try pipeline.handler(type: OutboxWriter.self).takeUnwritten()
  /// ```
  func takeUnwritten() -> [UInt8]? {
    guard case .open = state, let context,
      let pending = try? context.channel.syncOptions?.getOption(.bufferedWritableBytes),
      var output = unsent.last(pending)
    else { return nil }
    state = .handedOver
    switch outbox.take() {
    case .closed:
      return nil
    case .nothing, .finished:
      break
    case .items(let items):
      for item in items {
        switch item {
        case .bytes(let bytes, _): output += bytes
        case .buffer(let buffer): output += buffer.readableBytesView
        case .resync(let subscription): output += hub.resyncLine(subscription: subscription) ?? []
        }
      }
    }
    return output
  }
}
