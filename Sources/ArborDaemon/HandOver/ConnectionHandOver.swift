import ArborSystemd
import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Hands the daemon's connections to the next process through the service manager's
/// descriptor store (`FDSTORE=1`, `FileDescriptorStoreMax=`), and takes them back there:
/// a client stays connected across a restart, its watches go on from the revision after
/// the last one it got, and what it sent meanwhile is answered by the next process.
///
/// At stop (``pause(_:)``, then once the journal has every revision ``handOver(_:to:)``):
/// every connection's ``HandOverGate`` closes, so nothing more is read; the lines already
/// read are handled and answered here; then each connection is taken off this process at
/// once: its socket is stored as `connection-N`, and its watches, its unhandled input and
/// the output its client has not read yet go into the `handover` memory file
/// (``HandOverState``). Nobody waits for a client to read.
///
/// At start (``adopt(_:)``): each stored connection is served again, its watches
/// registered under their numbers, its input handled first; the store lets go of them.
///
/// ```swift
/// await ConnectionHandOver.pause(parts)
/// try await parts.journal.handOverStore()
/// let handed = await ConnectionHandOver.handOver(parts, to: parts.notifier)
/// ```
enum ConnectionHandOver {
  /// How long the lines already read may take to be answered.
  static let pauseLimit = Duration.seconds(10)
  /// How long the watch hub may take to reach the tree's last revision.
  static let catchUpLimit = Duration.seconds(1)

  // MARK: - At stop

  /// Closes every connection's gate and waits until the lines each had read are handled
  /// (``pauseLimit`` at most).
  static func pause(_ parts: DaemonParts) async {
    parts.handingOver.store(true, ordering: .releasing)
    // The connections the listening channel accepted before it stopped reading are set up
    // on their loops, each in a turn queued before this one: after a turn of every loop,
    // each has been admitted (behind a closed gate, since ``DaemonParts/handingOver``).
    for loop in parts.eventLoops.makeIterator() { try? await loop.submit {}.get() }
    let channels = parts.connections.all.map(\.channel)
    _ = await onTheirLoops(channels) { channel in
      let pipeline = channel.pipeline.syncOperations
      // The gate goes nearest the socket now (a handed-over connection has one already).
      if (try? pipeline.handler(type: HandOverGate.self)) == nil { try? pipeline.addHandler(HandOverGate(), position: .first) }
      try? pipeline.handler(type: HandOverGate.self).close()
      // And the read already asked of the socket is called off: what it would bring
      // after the connection's state is taken would be lost (the gate keeps only what
      // comes before).
      try? channel.syncOptions?.setOption(.autoRead, value: false)
    }
    // A connection found idle stays idle: its gate lets nothing more in.
    let deadline = ContinuousClock.now + pauseLimit
    var busy = channels
    while !busy.isEmpty && ContinuousClock.now < deadline {
      let idle = await onTheirLoops(busy) { channel in
        (try? channel.pipeline.syncOperations.handler(type: RequestStage.self))?.isIdle ?? true
      }
      busy = zip(busy, idle).filter { $0.1 == false }.map(\.0)
      if !busy.isEmpty { try? await Task.sleep(for: .milliseconds(2)) }
    }
    if !busy.isEmpty {
      parts.logger.warning("handing over: \(busy.count) connections still had requests running after \(pauseLimit)")
    }
    // The watches are sent what the hub has: wait until it has the tree's last revision,
    // while the journal still runs (under --fsync always the pump delivers a revision once
    // the journal has it). Should it not, the next process sends the watches a resync.
    let caughtUp = ContinuousClock.now + catchUpLimit
    while parts.hub.revision < parts.host.revision && ContinuousClock.now < caughtUp { try? await Task.sleep(for: .milliseconds(2)) }
  }

  /// Takes each connection off this process — its socket, its watches, what it read and
  /// did not handle, and what its client was to be sent and was not — and stores the
  /// sockets and, in one memory file, their state (stored with no connection too: the
  /// next process's generation). A client that reads nothing meanwhile keeps its
  /// connection: its output goes to the next process with it. Returns how many
  /// connections were handed over (the others are closed by the caller), or nil when the
  /// state could not be stored: the next process then serves no connection of this one.
  static func handOver(_ parts: DaemonParts, to keeper: any DescriptorKeeper) async -> Int? {
    // An inspector WebSocket's connection is a socket pair with its other end here: it
    // closes, and its client, told to come back (``WebSocketBridge``), reconnects.
    let all = parts.connections.all
    let entries = all.filter { !$0.bridged }
    let bridged = all.count - entries.count
    let room = max(0, keeper.capacity - 2)  // the listening socket and the state
    guard keeper.capacity >= 2 else { return nil }
    // What the watches were sent is the hub's revision (``pause(_:)`` waited for it): the
    // watches leave the hub with it, all at once. Nothing more is queued for them here; a
    // connection that is not handed over closes.
    let (revision, watches) = parts.hub.handOverAll()
    let descriptors = SocketCookie.descriptors()
    let candidates = entries.prefix(room)
    // Every connection's loop at once: each finds its socket's cookie and takes the
    // connection in the same turn.
    let taking = candidates.map { entry in
      let handed = watches[ObjectIdentifier(entry.outbox)] ?? []
      return SocketCookie.of(entry.channel).map { cookie -> (descriptor: Int32, connection: HandOverState.Connection)? in
        guard let cookie, let descriptor = descriptors[cookie] else { return nil }
        return take(entry, descriptor: descriptor, cookie: cookie, watches: handed)
      }
    }
    var taken: [(name: String, descriptor: Int32, connection: HandOverState.Connection)] = []
    var refused = 0
    for (entry, result) in zip(candidates, await results(of: taking)) {
      guard case .success(let connection?) = result else {
        refused += 1
        continue
      }
      taken.append((HandOverState.descriptorName(entry.id), connection.descriptor, connection.connection))
    }
    defer { for connection in taken { close(connection.descriptor) } }
    if bridged > 0 {
      parts.logger.info("handing over: \(bridged) inspector WebSockets are told to reconnect (1012)")
    }
    if refused > 0 {
      parts.logger.notice(
        "handing over: \(refused) of \(entries.count) connections had ended or had left more than --max-output-bytes unread, and are closed")
    }
    if entries.count > candidates.count {
      parts.logger.warning(
        "handing over: the next process can take \(keeper.capacity) descriptors; \(entries.count - candidates.count) connections are closed")
    }
    var state = HandOverState(generation: HandOverIntake.generation + 1, revision: revision, schema: parts.host.schemaHash, connections: [:])
    var unstored: [String] = []
    for connection in taken {
      guard keeper.store(connection.descriptor, name: connection.name) else {
        unstored.append(connection.name)
        continue
      }
      state.connections[connection.name] = connection.connection
    }
    if !unstored.isEmpty {
      parts.logger.warning("handing over: \(unstored.count) connections were not stored, and are closed: \(unstored.prefix(20).joined(separator: ", "))")
    }
    do {
      let file = try MemoryFile.holding(try state.encoded(), name: "arbor-handover")
      defer { close(file) }
      guard keeper.store(file, name: HandOverState.stateName) else {
        throw MemoryFile.Failure(description: "the next process's keeper did not take it")
      }
    } catch {
      // Without its state a stored connection would be served with no watches: let the
      // store go of them; their clients see the connection close, as at a plain stop.
      parts.logger.error("handing over: the state of the connections could not be stored (\(error)); they are closed")
      for name in state.connections.keys { keeper.removeStored(name: name) }
      return nil
    }
    let unsent = state.connections.values.reduce(0) { $0 + ($1.output?.count ?? 0) }
    parts.logger.info(
      "handed \(state.connections.count) connections over at revision \(revision) (generation \(state.generation)), with \(unsent) bytes their clients had not read")
    return state.connections.count
  }

  /// On the connection's event loop, all at once: a copy of its socket's descriptor, what
  /// it read and did not handle, and what its client has not been sent, with its watches
  /// (taken out of the hub before); then its channel closes (the copy keeps the socket
  /// open), so that nothing more is written or read here. Nil, and the connection left as
  /// it is, when the descriptor is no longer its socket or its output cannot be taken.
  private static func take(
    _ entry: (id: Int, outbox: Outbox, channel: any Channel, bridged: Bool), descriptor: Int32, cookie: UInt64, watches: [HandedWatch]
  ) -> (descriptor: Int32, connection: HandOverState.Connection)? {
    guard entry.channel.isActive, SocketCookie.of(descriptor: descriptor) == cookie else { return nil }
    let pipeline = entry.channel.pipeline.syncOperations
    guard let input = try? pendingInput(of: pipeline), let writer = try? pipeline.handler(type: OutboxWriter.self) else { return nil }
    let copy = fcntl(descriptor, F_DUPFD_CLOEXEC, 0)
    guard copy >= 0 else { return nil }
    guard let output = writer.takeUnwritten() else {
      close(copy)
      return nil
    }
    entry.channel.close(promise: nil)
    return (copy, HandOverState.Connection(input: input, output: output.isEmpty ? nil : Data(output), watches: watches))
  }

  /// What the connection read and did not handle: the start of a line, then what came
  /// after its gate closed.
  private static func pendingInput(of pipeline: ChannelPipeline.SynchronousOperations) throws -> [UInt8] {
    let framed = try pipeline.handler(type: LineDecoder.self).pendingInput
    return framed + (try pipeline.handler(type: HandOverGate.self).held)
  }

  /// Runs `body` for every channel on its own event loop, all at once rather than one
  /// loop after another, and returns what each gave, in order: nil where it threw.
  private static func onTheirLoops<T: Sendable>(
    _ channels: [any Channel], _ body: @escaping @Sendable (any Channel) throws -> T
  ) async -> [T?] {
    await results(of: channels.map { channel in channel.eventLoop.submit { try body(channel) } }).map { try? $0.get() }
  }

  /// What each of `futures` gave, in order, awaited once for all: under load each await
  /// waits its turn for a busy core, and 150 of them in a row took 200–300 ms.
  private static func results<T: Sendable>(of futures: [EventLoopFuture<T>]) async -> [Result<T, any Error>] {
    guard let loop = futures.first?.eventLoop else { return [] }
    return (try? await EventLoopFuture.whenAllComplete(futures, on: loop).get()) ?? []
  }

  // MARK: - At start

  /// Serves the connections the previous process handed over, if it did.
  static func adopt(_ parts: DaemonParts) async {
    let (passed, offeredAt) = HandOverIntake.take()
    guard !passed.isEmpty else { return }
    let started = ContinuousClock.now
    var state: HandOverState?
    if let file = passed.first(where: { $0.name == HandOverState.stateName }) {
      do {
        state = try HandOverState(reading: MemoryFile.contents(of: file.descriptor))
      } catch {
        parts.logger.error("the hand-over's state cannot be read (\(error)): its connections are served without their watches")
      }
      close(file.descriptor)
      parts.notifier.removeStored(name: HandOverState.stateName)
    }
    HandOverIntake.generation = state?.generation ?? HandOverIntake.generation
    // A model of another schema migrated the state: what each watcher holds is of the old
    // shape, and a patch of the new one would not apply to it.
    let migrated = state.map { $0.schema != parts.host.schemaHash } ?? false
    if migrated, let state {
      parts.logger.notice(
        "the state was handed over by a model of schema \(state.schema ?? "(not said)") and migrated to \(parts.host.schemaHash): every state watch gets a resync")
    }
    // The watches go on from the hub's copy of the state: wait until the pump made it.
    let deadline = ContinuousClock.now + .seconds(5)
    while !parts.hub.holdsState && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(2)) }
    // Every connection's watches are registered before any connection is served: an
    // intent one of them sends would otherwise move the hub past the revision the watches
    // of those not yet registered go on from.
    // All at once: each socket's channel is made on its loop, and waited for after.
    var adopting: [(name: String, descriptor: Int32, channel: EventLoopFuture<any Channel>)] = []
    for socket in passed where socket.name != HandOverState.stateName {
      var connection = state?.connections[socket.name]
      if migrated, let watches = connection?.watches { connection?.watches = watches.map { $0.resyncingFirst() } }
      let handed = connection
      let revision = state?.revision ?? 0
      let channel = ClientBootstrap(group: parts.eventLoops)
        .channelOption(.allowRemoteHalfClosure, value: true)
        .channelInitializer { channel in
          PeerCredentials.of(channel).flatMapThrowing { credentials in
            try parts.accept(channel, credentials: credentials, handed: handed, revision: revision)
          }
        }
        .withConnectedSocket(socket.descriptor)
      adopting.append((socket.name, socket.descriptor, channel))
    }
    var adopted: [any Channel] = []
    for (socket, channel) in zip(adopting, await results(of: adopting.map(\.channel))) {
      switch channel {
      case .success(let channel): adopted.append(channel)
      case .failure(let error):
        parts.logger.warning("a handed-over connection (\(socket.name)) cannot be served: \(error)")
        close(socket.descriptor)
      }
    }
    _ = await onTheirLoops(adopted) { channel in try channel.pipeline.syncOperations.handler(type: HandOverGate.self).open() }
    parts.logger.info(
      "took over \(adopted.count) connections at revision \(state?.revision ?? 0) (generation \(HandOverIntake.generation)) in \((ContinuousClock.now - started).logged), \((ContinuousClock.now - offeredAt).logged) after this process had them; serving at revision \(parts.host.revision)")
    // The store lets go of them once they are served: each message may wait for the service
    // manager to read the one before (a datagram socket's queue is short), and no client
    // waits for that.
    for socket in adopting { parts.notifier.removeStored(name: socket.name) }
  }
}
