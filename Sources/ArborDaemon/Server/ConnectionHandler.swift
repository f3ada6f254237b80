import NIOConcurrencyHelpers
import ArborJSON
import ArborRPC
import ArborStore
import Logging
import NIOCore
import Synchronization

/// Serves one client on its channel's event loop: frames request lines, handles each one
/// where it arrived (an `async` intent in a task of its own, at most `--max-in-flight` at
/// once), and writes what the connection's ``Outbox`` holds whenever the socket can take
/// more.
///
/// Nothing here waits: a request that cannot finish at once runs in a task, and reading
/// pauses while requests wait for a place; replies and notifications queued by anyone are
/// written in one write per wake-up.
final class ConnectionHandler: ChannelDuplexHandler {
  typealias InboundIn = ByteBuffer
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  private let id: Int
  private let role: Role?
  private let handler: RequestHandler
  private let hub: WatchHub
  private let options: DaemonOptions
  private let logger: Logger
  private let registry: ConnectionRegistry
  private let batcher: LoopBatcher

  private var framer: LineFramer
  private var outbox: Outbox?
  private var context: ChannelHandlerContext?
  /// Lines read and not yet started, because `--max-in-flight` requests are running.
  private var waiting = CircularBuffer<[UInt8]>()
  /// Requests running in tasks.
  private var running = 0
  /// A read was asked for while lines were waiting; it is made once they have started.
  private var readHeld = false
  /// The client will send nothing more (it half-closed, or sent a line over the limit).
  private var inputClosed = false
  /// Sent once running requests end, before the connection closes: a line was too long.
  private var closingError: [UInt8]?
  /// The connection is gone; nothing more is done.
  private var ended = false
  private var lastWrite: EventLoopFuture<Void>?

  init(
    id: Int, role: Role?, handler: RequestHandler, hub: WatchHub, options: DaemonOptions, logger: Logger, registry: ConnectionRegistry,
    batcher: LoopBatcher
  ) {
    self.batcher = batcher
    self.id = id
    self.role = role
    self.handler = handler
    self.hub = hub
    self.options = options
    self.logger = logger
    self.registry = registry
    self.framer = LineFramer(maxLineLength: max(1, options.maxLineBytes))
  }

  private var limit: Int { max(1, options.maxInFlight) }

  // MARK: - Lifetime

  func handlerAdded(context: ChannelHandlerContext) {
    self.context = context
    let loop = context.eventLoop
    let bound = NIOLoopBound(self, eventLoop: loop)
    let outbox = Outbox(watchLimit: max(1, options.watchQueue), byteLimit: max(1, options.maxOutputBytes)) {
      loop.execute { bound.value.write() }
    }
    self.outbox = outbox
    registry.add(id: id, outbox: outbox, channel: context.channel)
  }

  func channelInactive(context: ChannelHandlerContext) {
    end()
    context.fireChannelInactive()
  }

  func handlerRemoved(context: ChannelHandlerContext) {
    end()
    self.context = nil
  }

  private func end() {
    guard !ended else { return }
    ended = true
    waiting.removeAll()
    if let outbox {
      outbox.close()
      hub.removeAll(of: outbox)
    }
    registry.remove(id: id)
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {
    logger.debug("connection \(id) failed: \(error)")
    context.close(promise: nil)
  }

  // MARK: - Reading

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    guard !ended, !inputClosed else { return }
    framer.append(buffer.readableBytesView)
    do {
      while let line = try framer.nextLine() {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
        waiting.append(Array(line))
      }
    } catch {
      logger.notice("connection \(id): \(error); closing it")
      inputClosed = true
      closingError = RPCResponse(id: .null, error: ArborErrors.lineTooLong(limit: error.limit)).jsonLine
    }
    startWaiting()
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event {
      inputClosed = true
      startWaiting()
    }
    context.fireUserInboundEventTriggered(event)
  }

  /// Holds reads back while lines wait for a place among the running requests.
  func read(context: ChannelHandlerContext) {
    if waiting.isEmpty && !inputClosed {
      context.read()
    } else {
      readHeld = true
    }
  }

  private func startWaiting() {
    while !ended, running < limit, let line = waiting.popFirst() {
      start(line)
    }
    if waiting.isEmpty && readHeld && !inputClosed, let context {
      readHeld = false
      context.read()
    }
    endIfDone()
  }

  /// When the client will send nothing more and every request has its reply: without
  /// watches there is nothing more to send once the replies are out; with watches, they
  /// are served until the client goes or the daemon stops.
  private func endIfDone() {
    guard inputClosed, waiting.isEmpty, running == 0, !ended, let outbox else { return }
    if let error = closingError {
      closingError = nil
      outbox.send(error)
      outbox.finish()
    } else if !hub.hasWatches(of: outbox) {
      outbox.finish()
    }
  }

  // MARK: - Requests

  private func start(_ line: [UInt8]) {
    guard let outbox else { return }
    let connection = ConnectionContext(id: id, role: role, outbox: outbox)
    switch RPCInbound(line: line) {
    case .single(.invalid(let reply)):
      outbox.send(reply.jsonLine)
    case .single(.request(let request)):
      switch handler.handleNow(request, connection: connection, inBatch: false) {
      case .done(let outcome):
        if let id = request.id, let outcome { outbox.send(Self.response(id: id, outcome).jsonLine) }
      case .durable(let revision, let reply):
        afterDurable(revision) { failure in
          guard let id = request.id else { return }
          let outcome: Result<JSONValue, RPCError> = failure.map { .failure(ArborErrors.notDurable(revision: revision, $0)) } ?? .success(reply)
          outbox.send(Self.response(id: id, outcome).jsonLine)
        }
      case .later(let work):
        inTask {
          let outcome = await work()
          if let id = request.id, let outcome { outbox.send(Self.response(id: id, outcome).jsonLine) }
        }
      }
    case .batch(let calls):
      var replies: [RPCResponse] = []
      // Replies that wait for the journal (`--fsync always`): the batch's reply is sent
      // once the newest of them is durable.
      var durable: [(index: Int, revision: UInt64)] = []
      var rest = calls[...]
      while let call = rest.popFirst() {
        switch call {
        case .invalid(let reply):
          replies.append(reply)
        case .request(let request):
          switch handler.handleNow(request, connection: connection, inBatch: true) {
          case .done(let outcome):
            if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome)) }
          case .durable(let revision, let reply):
            if let id = request.id {
              durable.append((replies.count, revision))
              replies.append(Self.response(id: id, .success(reply)))
            }
          case .later(let work):
            // The rest of the batch runs in order, after this request, in its task.
            let handler = self.handler
            inTask { [replies, rest, durable] in
              var replies = replies
              for (index, revision) in durable {
                if case .failure(let error) = await handler.durable(revision, .null) {
                  replies[index].outcome = .failure(error)
                }
              }
              let outcome = await work()
              if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome)) }
              for call in rest {
                switch call {
                case .invalid(let reply):
                  replies.append(reply)
                case .request(let request):
                  let outcome = await handler.handle(request, connection: connection, inBatch: true)
                  if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome)) }
                }
              }
              if !replies.isEmpty { outbox.send(RPCResponse.batchLine(replies)) }
            }
            return
          }
        }
      }
      guard let newest = durable.map(\.revision).max() else {
        if !replies.isEmpty { outbox.send(RPCResponse.batchLine(replies)) }
        return
      }
      afterDurable(newest) { [replies, durable] failure in
        var replies = replies
        if let failure {
          for (index, revision) in durable {
            replies[index].outcome = .failure(ArborErrors.notDurable(revision: revision, failure))
          }
        }
        outbox.send(RPCResponse.batchLine(replies))
      }
    }
  }

  /// Calls `send` once `revision` is durable (or could not be written), holding a place
  /// among the running requests meanwhile; `send` runs on the thread that wrote it.
  private func afterDurable(_ revision: UInt64, _ send: @escaping @Sendable (StoreError?) -> Void) {
    guard let context else { return }
    running += 1
    let loop = context.eventLoop
    let bound = NIOLoopBound(self, eventLoop: loop)
    let batcher = self.batcher
    handler.journal.writer.whenDurable(through: revision) { failure in
      batcher.execute(on: loop) {
        send(failure)
        bound.value.requestFinished()
      }
    }
  }

  /// Runs `work` in a task that holds a place among the running requests until it ends.
  private func inTask(_ work: @escaping @Sendable () async -> Void) {
    guard let context else { return }
    running += 1
    let loop = context.eventLoop
    let bound = NIOLoopBound(self, eventLoop: loop)
    Task {
      await work()
      loop.execute { bound.value.requestFinished() }
    }
  }

  private func requestFinished() {
    running -= 1
    startWaiting()
  }

  private static func response(id: RPCID, _ outcome: Result<JSONValue, RPCError>) -> RPCResponse {
    switch outcome {
    case .success(let result): return RPCResponse(id: id, result: result)
    case .failure(let error): return RPCResponse(id: id, error: error)
    }
  }

  // MARK: - Writing

  func channelWritabilityChanged(context: ChannelHandlerContext) {
    if context.channel.isWritable { write() }
    context.fireChannelWritabilityChanged()
  }

  /// Writes everything the outbox holds, when the socket can take more; otherwise the
  /// outbox keeps it (and counts it against its limit) until the socket drains.
  private func write() {
    // Until the outbox is empty (or finished, or closed), or the socket is full: then the
    // writability change comes back here.
    while !ended, let context, let outbox, context.channel.isWritable {
      switch outbox.take() {
      case .nothing:
        return
      case .closed:
        logger.notice("connection \(id) closed: it left more than \(options.maxOutputBytes) bytes of output unread")
        context.close(promise: nil)
        return
      case .finished:
        let channel = context.channel
        if let lastWrite {
          lastWrite.whenComplete { _ in channel.close(promise: nil) }
        } else {
          context.close(promise: nil)
        }
        return
      case .items(let items):
        var buffer = context.channel.allocator.buffer(capacity: 256)
        for item in items {
          switch item {
          case .bytes(let bytes, _):
            buffer.writeBytes(bytes)
          case .resync(let subscription):
            if let line = hub.resyncLine(subscription: subscription) { buffer.writeBytes(line) }
          }
        }
        if buffer.readableBytes > 0 {
          lastWrite = context.writeAndFlush(wrapOutboundOut(buffer))
        }
      }
    }
  }
}

/// The open connections, so that a stopping daemon can flush and close them.
final class ConnectionRegistry: Sendable {
  private let entries = NIOLockedValueBox<[Int: (outbox: Outbox, channel: any Channel)]>([:])

  func add(id: Int, outbox: Outbox, channel: any Channel) { entries.withLockedValue { $0[id] = (outbox, channel) } }
  func remove(id: Int) { _ = entries.withLockedValue { $0.removeValue(forKey: id) } }

  /// Lets every connection write what it has queued, then close.
  func finishAll() { for entry in entries.withLockedValue({ Array($0.values) }) { entry.outbox.finish() } }

  /// Closes the connections still open.
  func closeAll() { for entry in entries.withLockedValue({ Array($0.values) }) { entry.channel.close(promise: nil) } }

  var isEmpty: Bool { entries.withLockedValue { $0.isEmpty } }
}
