import NIOConcurrencyHelpers
import ArborJSON
import ArborRPC
import ArborStore
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Serves one client on its channel's event loop: frames request lines, handles each one
/// where it arrived (an `async` intent in a task of its own, at most `--max-in-flight` at
/// once), and writes what the connection's ``Outbox`` holds whenever the socket can take
/// more.
///
/// Nothing here waits: a request that cannot finish at once runs in a task, and reading
/// pauses while requests wait for a place; replies and notifications queued by anyone are
/// written in one write per wake-up.
///
/// Nothing here holds the event loop for long either: a long line is parsed on NIO's
/// thread pool, a batch is handled in slices of at most 2 ms (``BatchRun``), and a batch
/// of many replies is encoded on the thread pool; meanwhile the connection's later lines
/// wait, so they are still answered after it. Once large work is done, the memory it
/// needed is given back (``MemoryTrim``).
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
  /// Requests running in tasks, waiting for the journal, or holding the connection's
  /// place (``hold()``).
  private var running = 0
  /// Places held: while there are any, later lines wait.
  private var holds = 0
  /// The batch being handled in slices.
  private var batch: BatchRun?
  /// A line or a reply of at least ``MemoryTrim/largeBytes`` went through since the last
  /// trim was asked for: ask again once the places are released, or the connection ends.
  private var trimWhenDone = false
  /// The arenas of the threads that did this connection's large work off the loop, for the
  /// trim (see ``MemoryTrim``).
  private var arenaMarks: [ArenaMark] = []
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
    MemoryTrim.configure(logger: logger)
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
    batch = nil
    framer = LineFramer(maxLineLength: framer.maxLineLength)
    if trimWhenDone {
      trimWhenDone = false
      MemoryTrim.request(releasing: arenaMarks)
      arenaMarks = []
    }
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
      while let line = try framer.takeLine() {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
        waiting.append(line)
      }
    } catch {
      logger.notice("connection \(id): \(error); closing it")
      // What the framer held of the long line is let go of now, not when the client goes.
      framer = LineFramer(maxLineLength: framer.maxLineLength)
      trimWhenDone = true
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
    while !ended, holds == 0, running < limit, let line = waiting.popFirst() {
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

  /// Lines at least this long are parsed off the event loop (64 KiB; a 10 MiB batch takes
  /// about a second to parse in a debug build, 50 ms in a release one).
  static let offLoopLineBytes = 64 << 10
  /// Batches with at least this many replies are encoded off the event loop.
  static let offLoopReplies = 256

  private func start(_ line: [UInt8]) {
    guard let outbox, let context else { return }
    let connection = ConnectionContext(id: id, role: role, outbox: outbox)
    if line.count >= MemoryTrim.largeBytes { trimWhenDone = true }
    guard line.count >= Self.offLoopLineBytes else {
      handle(RPCInbound(line: line), connection: connection, holdingPlace: false)
      return
    }
    // Parsed on NIO's thread pool; later lines of this connection wait for it.
    hold()
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    let large = trimWhenDone
    NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
      (RPCInbound(line: line), large ? ArenaMark.here() : nil)
    }.whenComplete { result in
      let handler = bound.value
      switch result {
      case .success(let (inbound, mark)):
        if let mark { handler.keep(mark) }
        handler.handle(inbound, connection: connection, holdingPlace: true)
      case .failure:
        handler.handle(RPCInbound(line: line), connection: connection, holdingPlace: true)
      }
    }
  }

  /// Handles what one line held. `holdingPlace`: the line holds its connection's place
  /// (``hold()``), which is released once it is handled.
  private func handle(_ inbound: RPCInbound, connection: ConnectionContext, holdingPlace: Bool) {
    let outbox = connection.outbox
    guard !ended else {
      if holdingPlace { release() }
      return
    }
    switch inbound {
    case .single(.invalid(let reply)):
      outbox.send(reply.cuttingEchoes().jsonLine)
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
      batch = BatchRun(calls: calls, connection: connection, holdsPlace: holdingPlace)
      continueBatch()
      return
    }
    if holdingPlace { release() }
  }

  /// Handles the current batch's requests, in order, for at most ``BatchRun/sliceBudget``;
  /// then schedules the rest, so that the other channels of the event loop are served in
  /// between. Once every request is done, sends the replies as one array.
  private func continueBatch() {
    guard let run = batch else { return }
    guard !ended, let context else {
      batch = nil
      if run.holdsPlace { release() }
      return
    }
    let deadline = NIODeadline.now() + BatchRun.sliceBudget
    while let call = run.nextCall() {
      switch call {
      case .invalid(let reply):
        run.replies.append(reply.cuttingEchoes())
      case .request(let request):
        switch handler.handleNow(request, connection: run.connection, inBatch: true) {
        case .done(let outcome):
          if let id = request.id, let outcome { run.replies.append(Self.response(id: id, outcome)) }
        case .durable(let revision, let reply):
          if let id = request.id {
            run.durable.append((run.replies.count, revision))
            run.replies.append(Self.response(id: id, .success(reply)))
          }
        case .later(let work):
          batch = nil
          finishInTask(run, request: request, work: work)
          return
        }
      }
      if run.hasMore && NIODeadline.now() >= deadline {
        // Later lines of this connection wait until the batch is done.
        if !run.holdsPlace {
          run.holdsPlace = true
          hold()
        }
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        context.eventLoop.scheduleTask(in: BatchRun.sliceGap) { bound.value.continueBatch() }
        return
      }
    }
    batch = nil
    guard let newest = run.durable.map(\.revision).max() else {
      let (calls, replies) = run.takeCallsAndReplies()
      sendBatchLine(replies, outbox: run.connection.outbox, holdingPlace: run.holdsPlace, dropping: calls)
      return
    }
    let replies = run.replies
    let durable = run.durable
    let outbox = run.connection.outbox
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    afterDurable(newest) { failure in
      var replies = replies
      if let failure {
        for (index, revision) in durable {
          replies[index].outcome = .failure(ArborErrors.notDurable(revision: revision, failure))
        }
      }
      bound.value.sendBatchLine(replies, outbox: outbox, holdingPlace: false)
    }
    if run.holdsPlace { release() }
  }

  /// The rest of a batch, from a request that must suspend (an `async` intent): runs in
  /// order, after it, in its task.
  private func finishInTask(_ run: BatchRun, request: RPCRequest, work: @escaping @Sendable () async -> Result<JSONValue, RPCError>?) {
    let handler = self.handler
    let connection = run.connection
    let outbox = connection.outbox
    inTask { [replies = run.replies, rest = run.rest, durable = run.durable] in
      var replies = replies
      for (index, revision) in durable {
        if case .failure(let error) = await handler.durable(revision, .null) {
          replies[index].outcome = .failure(error)
        }
      }
      let outcome = await work()
      if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome)) }
      for (index, call) in rest.enumerated() {
        // A long batch lets the other tasks of the pool (the watch pump among them) run.
        if index % 256 == 255 { await Task.yield() }
        switch call {
        case .invalid(let reply):
          replies.append(reply.cuttingEchoes())
        case .request(let request):
          let outcome = await handler.handle(request, connection: connection, inBatch: true)
          if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome)) }
        }
      }
      if !replies.isEmpty { outbox.send(RPCResponse.batchLine(replies)) }
    }
    if run.holdsPlace { release() }
  }

  /// Queues a batch's replies as one array line. Many replies are encoded on NIO's thread
  /// pool (100,000 take about a second in a debug build), holding the connection's place
  /// meanwhile so that later lines are answered after it and the connection does not end
  /// before it is sent.
  ///
  /// The replies, and the batch's `calls`, are let go of there too: freeing 100,000 of
  /// them is itself tens of milliseconds of work.
  private func sendBatchLine(_ replies: [RPCResponse], outbox: Outbox, holdingPlace: Bool, dropping calls: [RPCInbound.Call] = []) {
    guard replies.count >= Self.offLoopReplies, let context else {
      if !replies.isEmpty { outbox.send(RPCResponse.batchLine(replies)) }
      if holdingPlace { release() }
      return
    }
    if !holdingPlace { hold() }
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    let allocator = context.channel.allocator
    // Handed over through a box, so that the last references are on the pool's thread.
    let work = NIOLockedValueBox((replies: replies, calls: calls))
    NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () -> ArenaMark? in
      let (replies, calls) = work.withLockedValue { work in
        defer { work = ([], []) }
        return work
      }
      // Copied into the socket's form here too, so that the writer need not.
      let line = RPCResponse.batchLine(replies)
      var buffer = allocator.buffer(capacity: line.count)
      buffer.writeBytes(line)
      outbox.send(buffer)
      withExtendedLifetime(calls) {}
      return line.count >= MemoryTrim.largeBytes ? ArenaMark.here() : nil
    }.whenComplete { result in
      let handler = bound.value
      switch result {
      case .success(let mark): if let mark { handler.keep(mark) }
      case .failure: outbox.send(RPCResponse.batchLine(work.withLockedValue { $0.replies }))
      }
      handler.release()
    }
  }

  /// Keeps the mark of an arena that large work used, for the trim once it is all done.
  private func keep(_ mark: ArenaMark) {
    guard !ended else {
      MemoryTrim.request(releasing: [mark])
      return
    }
    arenaMarks.append(mark)
    trimWhenDone = true
  }

  /// Holds the connection's place: its later lines wait (they are answered after this
  /// one, as if it had been handled at once) and it does not end. Off-loop parsing and
  /// encoding, and batches that take more than one slice, hold it.
  private func hold() {
    running += 1
    holds += 1
  }

  /// Releases a place taken by ``hold()``, starts what waited, and asks for memory to be
  /// given back once large work is all done.
  private func release() {
    holds -= 1
    if holds == 0 && trimWhenDone {
      trimWhenDone = false
      MemoryTrim.request(releasing: arenaMarks)
      arenaMarks = []
    }
    requestFinished()
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

  /// The reply to send; an error's echoes of the request are cut (``RPCError/cuttingEchoes()``).
  private static func response(id: RPCID, _ outcome: Result<JSONValue, RPCError>) -> RPCResponse {
    switch outcome {
    case .success(let result): return RPCResponse(id: id, result: result)
    case .failure(let error): return RPCResponse(id: id, error: error.cuttingEchoes())
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
        // What it left unread was dropped: give it back.
        MemoryTrim.request()
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
        // Replies and notifications are gathered into one buffer; a buffer item goes out
        // as it is, between them.
        var size = 0
        for case .bytes(let bytes, _) in items { size += bytes.count }
        var gathered = context.channel.allocator.buffer(capacity: max(256, size))
        var written = 0
        var write: EventLoopFuture<Void>?
        for item in items {
          switch item {
          case .bytes(let bytes, _):
            gathered.writeBytes(bytes)
          case .resync(let subscription):
            if let line = hub.resyncLine(subscription: subscription) { gathered.writeBytes(line) }
          case .buffer(let buffer):
            if gathered.readableBytes > 0 {
              written += gathered.readableBytes
              write = context.write(wrapOutboundOut(gathered))
              gathered.clear()
            }
            written += buffer.readableBytes
            write = context.write(wrapOutboundOut(buffer))
          }
        }
        if gathered.readableBytes > 0 {
          written += gathered.readableBytes
          write = context.write(wrapOutboundOut(gathered))
        }
        if let write {
          context.flush()
          // Once a large write is out, its buffers are freed: give them back.
          if written >= MemoryTrim.largeBytes { write.whenComplete { _ in MemoryTrim.request() } }
          lastWrite = write
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
