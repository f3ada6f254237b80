import ArborJSON
import ArborLocking
import ArborRPC
import Logging
import NIOCore
import NIOPosix

/// Handles a connection's requests in the order they came, on its event loop: the last
/// stage of its pipeline (``OutboxWriter``, ``LineDecoder``, ``RPCLineCodec``, this).
///
/// A request is handled where it arrived; an `async` intent runs in a task of its own, at
/// most `--max-in-flight` at once, and the lines after them wait here (reads are held
/// meanwhile). A batch is handled in slices of at most 2 ms (``BatchRun``), and a batch of
/// many replies is encoded on NIO's thread pool; the lines after it wait for it, so they
/// are still answered after it. Under `--fsync always` a reply waits for the journal
/// (``replyWhenDurable(_:durable:send:)``, the one durable-reply path). Once large work is
/// done, the memory it needed is given back (``MemoryTrim``). Replies go to the
/// connection's ``Outbox``; nothing here writes to the socket.
final class RequestStage: ChannelDuplexHandler {
  typealias InboundIn = InboundLine
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Batches with at least this many replies are encoded off the event loop.
  static let offLoopReplies = 256
  /// A reply whose result holds more values than this (``JSONValue/exceeds(values:)``) is
  /// encoded off the event loop, and so is a batch that holds one: a `state.get` of a
  /// large tree writes megabytes, which would hold every connection of the loop.
  static let offLoopValues = 4_096

  /// Whether a reply is large enough to be encoded off the event loop.
  static func isLarge(_ outcome: Result<JSONValue, RPCError>) -> Bool {
    guard case .success(let value) = outcome else { return false }
    return value.exceeds(values: offLoopValues)
  }

  private let connection: ConnectionContext
  private let handler: RequestHandler
  private let hub: WatchHub
  private let logger: Logger
  private let batcher: LoopBatcher

  /// Which lines wait, what runs, what is held: changed only through its events, whose
  /// actions ``run(_:)`` carries out.
  private var machine: StateMachine
  private var context: ChannelHandlerContext?

  init(connection: ConnectionContext, handler: RequestHandler, hub: WatchHub, options: DaemonOptions, logger: Logger, batcher: LoopBatcher) {
    self.connection = connection
    self.handler = handler
    self.hub = hub
    self.logger = logger
    self.batcher = batcher
    self.machine = StateMachine(limit: options.maxInFlight)
    MemoryTrim.configure(logger: logger)
  }

  private var outbox: Outbox { connection.outbox }

  private var isEnded: Bool { machine.isEnded }

  /// Every line read so far has been handled (``StateMachine/isIdle``), or the connection
  /// ended. Asked on the connection's event loop by a hand-over.
  var isIdle: Bool { machine.isIdle || machine.isEnded }

  // MARK: - Lifetime

  func handlerAdded(context: ChannelHandlerContext) { self.context = context }

  func handlerRemoved(context: ChannelHandlerContext) {
    run(machine.end())
    self.context = nil
  }

  func channelInactive(context: ChannelHandlerContext) {
    run(machine.end())
    context.fireChannelInactive()
  }

  // MARK: - Actions

  /// Carries out what the state machine decided.
  private func run(_ action: StateMachine.Action) {
    switch action {
    case .none:
      break
    case .startWaiting:
      startWaiting()
    case .lineTooLong(let limit):
      logger.notice("connection \(connection.id): a line is longer than the limit of \(limit) bytes; closing it")
      startWaiting()
    case .read:
      context?.read()
    case .sendLineTooLongAndFinish(let limit):
      outbox.send(RPCResponse(id: .null, error: ArborErrors.lineTooLong(limit: limit)).jsonLine)
      outbox.finish()
    case .finishUnlessWatched:
      if !hub.hasWatches(of: outbox) { outbox.finish() }
    case .trim(let marks):
      MemoryTrim.request(releasing: marks)
    case .trimAndStartWaiting(let marks):
      MemoryTrim.request(releasing: marks)
      startWaiting()
    }
  }

  /// Starts the lines that may start, in order, then does what follows once none may
  /// (a held read, or the end of a connection whose client is done).
  private func startWaiting() {
    while let line = machine.nextLine() {
      start(line)
    }
    run(machine.linesStarted())
  }

  // MARK: - Reading

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    run(machine.lineRead(unwrapInboundIn(data)))
  }

  /// When the client will send nothing more and every request has its reply, the
  /// connection ends once the replies are out, unless it has watches: they are served
  /// until the client goes or the daemon stops.
  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event { run(machine.inputClosed()) }
    context.fireUserInboundEventTriggered(event)
  }

  /// Holds reads back while lines wait for a place among the running requests.
  func read(context: ChannelHandlerContext) {
    run(machine.readRequested())
  }

  // MARK: - Requests

  private func start(_ line: InboundLine) {
    guard case .parsed(let inbound, let large, let mark) = line else { return }
    machine.lineStarted(large: large, mark: mark)
    let outbox = self.outbox
    switch inbound {
    case .single(.invalid(let reply)):
      outbox.send(reply.cuttingEchoes().jsonLine)
    case .single(.request(let request)):
      switch handler.handleNow(request, connection: connection, inBatch: false) {
      case .done(let outcome):
        guard let id = request.id, let outcome else { return }
        if Self.isLarge(outcome) {
          let reply = Self.response(id: id, outcome)
          sendOffLoop(holdingPlace: false) { reply.jsonLine }
        } else {
          outbox.send(Self.response(id: id, outcome).jsonLine)
        }
      case .intent(let result):
        if let id = request.id { outbox.send(RPCResponse.successLine(id: id) { result.writeJSON(to: &$0) }) }
      case .durable(let revision, let reply):
        guard let id = request.id else { return }
        replyWhenDurable([RPCResponse(id: id, result: reply)], durable: [(0, revision)]) { replies in
          outbox.send(replies[0].jsonLine)
        }
      case .later(let work):
        inTask {
          let outcome = await work()
          if let id = request.id, let outcome {
            let reply = Self.response(id: id, outcome)
            outbox.send(await Self.offPool(Self.isLarge(outcome)) { reply.jsonLine })
          }
        }
      }
    case .batch(let calls):
      machine.batchStarted(BatchRun(calls: calls, connection: connection, holdsPlace: false))
      continueBatch()
    }
  }

  /// Handles the current batch's requests, in order, for at most ``BatchRun/sliceBudget``;
  /// then schedules the rest, so that the other channels of the event loop are served in
  /// between. Once every request is done, sends the replies as one array.
  private func continueBatch() {
    guard let run = machine.batch else { return }
    guard !isEnded, let context else {
      machine.batchEnded()
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
          if let id = request.id, let outcome {
            if Self.isLarge(outcome) { run.holdsLargeReply = true }
            run.replies.append(Self.response(id: id, outcome))
          }
        case .intent(let result):
          if let id = request.id { run.replies.append(RPCResponse(id: id, result: result.jsonValue)) }
        case .durable(let revision, let reply):
          if let id = request.id {
            run.durable.append((run.replies.count, revision))
            run.replies.append(Self.response(id: id, .success(reply)))
          }
        case .later(let work):
          machine.batchEnded()
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
    machine.batchEnded()
    guard !run.durable.isEmpty else {
      let (calls, replies) = run.takeCallsAndReplies()
      sendBatchLine(replies, holdingPlace: run.holdsPlace, large: run.holdsLargeReply, dropping: calls)
      return
    }
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    let large = run.holdsLargeReply
    replyWhenDurable(run.replies, durable: run.durable) { replies in
      bound.value.sendBatchLine(replies, holdingPlace: false, large: large)
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
      guard !replies.isEmpty else { return }
      let large = replies.count >= Self.offLoopReplies || replies.contains { Self.isLarge($0.outcome) }
      outbox.send(await Self.offPool(large) { [replies] in RPCResponse.batchLine(replies) })
    }
    if run.holdsPlace { release() }
  }

  /// Queues a batch's replies as one array line. Many replies, or a large one, are
  /// encoded on NIO's thread pool (100,000 take about a second in a debug build).
  ///
  /// The replies, and the batch's `calls`, are let go of there too: freeing 100,000 of
  /// them is itself tens of milliseconds of work.
  private func sendBatchLine(_ replies: [RPCResponse], holdingPlace: Bool, large: Bool = false, dropping calls: [RPCInbound.Call] = []) {
    guard replies.count >= Self.offLoopReplies || large else {
      if !replies.isEmpty { outbox.send(RPCResponse.batchLine(replies)) }
      if holdingPlace { release() }
      return
    }
    sendOffLoop(holdingPlace: holdingPlace) {
      withExtendedLifetime(calls) { RPCResponse.batchLine(replies) }
    }
  }

  /// Queues the line `makeLine` encodes, encoded on NIO's thread pool; the connection's
  /// place is held meanwhile (taken here unless `holdingPlace`), so that later lines are
  /// answered after it and the connection does not end before it is sent. What `makeLine`
  /// holds is let go of on the pool's thread.
  private func sendOffLoop(holdingPlace: Bool, _ makeLine: @escaping @Sendable () -> [UInt8]) {
    let outbox = self.outbox
    guard let context else {
      outbox.send(makeLine())
      if holdingPlace { release() }
      return
    }
    if !holdingPlace { hold() }
    let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
    let allocator = context.channel.allocator
    // Handed over through a box, so that the last references are on the pool's thread.
    let work = LockedState<(@Sendable () -> [UInt8])?>(makeLine)
    let take: @Sendable () -> (@Sendable () -> [UInt8])? = { work.withLock { work in
      defer { work = nil }
      return work
    } }
    NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) { () -> ArenaMark? in
      guard let makeLine = take() else { return nil }
      // Copied into the socket's form here too, so that the writer need not.
      let line = makeLine()
      var buffer = allocator.buffer(capacity: line.count)
      buffer.writeBytes(line)
      outbox.send(buffer)
      return line.count >= MemoryTrim.largeBytes ? ArenaMark.here() : nil
    }.whenComplete { result in
      let stage = bound.value
      switch result {
      case .success(let mark): if let mark { stage.run(stage.machine.keep(mark)) }
      case .failure: if let makeLine = take() { outbox.send(makeLine()) }
      }
      stage.release()
    }
  }

  /// The line `makeLine` encodes: on NIO's thread pool when `large`, so that a task does
  /// not hold one of the cooperative pool's few threads for the whole encoding; here
  /// otherwise (and should the pool have stopped).
  private static func offPool(_ large: Bool, _ makeLine: @escaping @Sendable () -> [UInt8]) async -> [UInt8] {
    guard large, let line = try? await NIOThreadPool.singleton.runIfActive(makeLine) else { return makeLine() }
    return line
  }

  // MARK: - Places

  /// Holds the connection's place: its later lines wait (they are answered after this
  /// one, as if it had been handled at once) and it does not end. Off-loop encoding and
  /// batches that take more than one slice hold it.
  private func hold() {
    machine.hold()
  }

  /// Releases a place taken by ``hold()``, starts what waited, and asks for memory to be
  /// given back once large work is all done.
  private func release() {
    run(machine.release())
  }

  /// The durable-reply path, for a single request and a batch alike: once the newest of
  /// the `durable` revisions is on disk (or could not be written), `send` gets `replies`
  /// with each reply at a durable index turned into `org.arbor.NotDurable` if the journal
  /// failed. A place among the running requests is held meanwhile; `send` runs on the
  /// connection's event loop.
  private func replyWhenDurable(
    _ replies: [RPCResponse], durable: [(index: Int, revision: UInt64)], send: @escaping @Sendable ([RPCResponse]) -> Void
  ) {
    guard let context, let newest = durable.map(\.revision).max() else { return }
    machine.requestStarted()
    let loop = context.eventLoop
    let bound = NIOLoopBound(self, eventLoop: loop)
    let batcher = self.batcher
    handler.journal.writer.whenDurable(through: newest) { failure in
      var replies = replies
      if let failure {
        for (index, revision) in durable {
          replies[index].outcome = .failure(ArborErrors.notDurable(revision: revision, failure))
        }
      }
      batcher.execute(on: loop) { [replies] in
        send(replies)
        bound.value.requestFinished()
      }
    }
  }

  /// Runs `work` in a task that holds a place among the running requests until it ends.
  private func inTask(_ work: @escaping @Sendable () async -> Void) {
    guard let context else { return }
    machine.requestStarted()
    let loop = context.eventLoop
    let bound = NIOLoopBound(self, eventLoop: loop)
    Task {
      await work()
      loop.execute { bound.value.requestFinished() }
    }
  }

  private func requestFinished() {
    run(machine.requestFinished())
  }

  /// The reply to send; an error's echoes of the request are cut (``RPCError/cuttingEchoes()``).
  private static func response(id: RPCID, _ outcome: Result<JSONValue, RPCError>) -> RPCResponse {
    switch outcome {
    case .success(let result): return RPCResponse(id: id, result: result)
    case .failure(let error): return RPCResponse(id: id, error: error.cuttingEchoes())
    }
  }
}
