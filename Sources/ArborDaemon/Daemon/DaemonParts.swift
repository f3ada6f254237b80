import ArborLocking
import Arbor
import ArborJSON
import ArborRPC
import ArborStorage
import ArborSystemd
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// What a running daemon is made of, built once the tree is restored: the watch hub, the
/// journal, the change pump, the request handler, the open connections and the settings
/// in force. ``services`` composes them as services of a `ServiceGroup`, the way
/// Hummingbird composes an application: the change pump, the journal's upkeep, the status
/// ticker, then the socket server, which stops first on graceful shutdown.
final class DaemonParts: Sendable {
  let name: String
  let host: any TreeHost
  /// The command line's options alone: a reload applies the settings file over them.
  let commandLine: DaemonOptions
  let logLevel: SharedLogLevel
  let paths: DaemonPaths
  /// The socket systemd passed (socket activation); nil when the daemon binds its own,
  /// whose path was checked before the store was opened.
  let adopted: ListenSockets.Socket?
  /// The HTTP listener's socket systemd passed (`FileDescriptorName=http`), if it did.
  let adoptedHTTP: ListenSockets.Socket?
  let store: any StateStore
  /// Lets go of the state directory this process holds (nil for a store that has no
  /// lock): closes the store, then releases the directory's lock. An upgrade does once the
  /// store is handed over, before this process exits. The store closes first because its
  /// last SQLite connection checkpoints as it closes, holding the database's lock, and the
  /// next process would find the database locked.
  let letGoOfStateDirectory: (@Sendable () async -> Void)?
  let logger: Logger

  let stats = DaemonStats()
  let hub: WatchHub
  let journal: DaemonJournal
  let pump: ChangePump
  let handler: RequestHandler
  let connections = ConnectionRegistry()
  let batcher = LoopBatcher()
  let notifier = SystemdNotifier()
  /// Roles and limits as the settings are now: a reload changes them for the connections
  /// that come after it.
  let live: LockedState<DaemonOptions>
  private let nextConnectionID = Atomic<Int>(1)
  /// The service manager keeps descriptors across restarts (`$FDSTORE`): connections are
  /// handed to the next process at stop (``ConnectionHandOver``).
  let handsOverConnections = SystemdNotifier().descriptorStoreSize > 0
  /// True while the Unix socket listens and the daemon is not stopping (`/readyz`).
  let serving = Atomic<Bool>(false)
  /// True once a stop that hands the connections over has begun
  /// (``ConnectionHandOver/pause(_:)``): a connection accepted after that starts behind a
  /// closed gate, and goes over with the others.
  let handingOver = Atomic<Bool>(false)
  /// Inspector WebSockets still being served (``WebSocketBridge``): a hand-over waits for
  /// them to have sent their close (1012) before the HTTP listener stops, whose stop would
  /// close them with 1000 instead.
  let webSocketsServing = Atomic<Int>(0)
  /// Signalled when the last of them ends.
  let webSocketsEnded = ZeroWait()
  /// True once the connections went to the next process (the service manager's store, or
  /// an upgrade's new process that took them): the models go on there, so this process
  /// ends without taking its tree apart (``ProcessEnd``).
  let handedOver = Atomic<Bool>(false)
  /// `--event-loops N`: a group of the daemon's own, shut down by ``shutdown()``.
  private let ownEventLoops: MultiThreadedEventLoopGroup?

  /// - Parameters:
  ///   - options: the command line with the settings file applied.
  ///   - snapshotRevisions: the revisions of the snapshots the store holds (read on a thread
  ///     that may wait, never here: this runs on the cooperative pool).
  ///   - journalledThrough: the newest revision the journal holds (or a snapshot stands for).
  ///   - base: the revision whose state the store holds as the tree is now.
  ///   - restoredState: the state the tree was restored from, when the store held it as it is.
  init(
    name: String, host: any TreeHost, options: DaemonOptions, commandLine: DaemonOptions, logLevel: SharedLogLevel, paths: DaemonPaths,
    adopted: ListenSockets.Socket?, adoptedHTTP: ListenSockets.Socket? = nil, store: any StateStore, snapshotRevisions: [UInt64],
    journalledThrough: UInt64, base: UInt64?, restoredState: JSONValue?, standby: StandbyLeader? = nil, letGoOfStateDirectory: (@Sendable () async -> Void)? = nil,
    logger: Logger
  ) {
    self.name = name
    self.host = host
    self.commandLine = commandLine
    self.logLevel = logLevel
    self.paths = paths
    self.adopted = adopted
    self.adoptedHTTP = adoptedHTTP
    self.store = store
    self.letGoOfStateDirectory = letGoOfStateDirectory
    self.logger = logger
    self.live = LockedState(options)
    hub = WatchHub(historyLimit: options.history, logger: logger)
    let journal = DaemonJournal(
      store: store, snapshotRevisions: snapshotRevisions, host: host, hub: hub, options: options, journalledThrough: journalledThrough,
      standby: standby, logger: logger)
    self.journal = journal
    // Under --fsync always, watchers see a revision once it is on disk.
    let initial = base.flatMap { base in restoredState.map { (revision: base, value: $0) } }
    let pump = ChangePump(
      host: host, hub: hub, initial: initial, durability: options.fsync == .always ? journal.writer : nil, logger: logger)
    self.pump = pump
    if standby != nil {
      // A standby's journal follows the leader's (JournalFollower), and writes nothing.
      journal.writer.advance(to: journalledThrough)
      if let restoredState { hub.reset(document: restoredState, revision: journalledThrough) }
    } else {
      journal.follow(holding: base)
    }
    handler = RequestHandler(host: host, hub: hub, journal: journal, stats: stats, name: name, logger: logger) {
      journal.follow(holding: nil)
      pump.restart()
    }
    let metrics = stats.metrics
    journal.writer.observeTransactions { duration, revisions in metrics.journalTransaction(took: duration, revisions: revisions) }
    journal.observeSnapshots { duration, bytes in metrics.snapshotSaved(took: duration, bytes: bytes) }
    // One event loop per core unless `--event-loops` says otherwise.
    ownEventLoops = options.eventLoops > 0 ? MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops) : nil
    Self.raiseOpenFileLimit(logger: logger)
  }

  /// The event loops the connections run on.
  var eventLoops: any EventLoopGroup { ownEventLoops ?? MultiThreadedEventLoopGroup.singleton }

  /// The daemon's services in start order; graceful shutdown runs in reverse: the server
  /// drains and saves first, then the ticker, the journal's upkeep and the pump stop.
  /// A standby runs `standby` (its journal follower and its watch for the lead) in place
  /// of the pump and the journal's upkeep. The leader of a shared store serves what the
  /// store can do for its standbys (forwarded intents, relayed events) and watches for
  /// losing the lead.
  func services(
    listening: @escaping @Sendable () -> Void, standby: [ServiceGroupConfiguration.ServiceConfiguration]? = nil,
    leadership: Leadership? = nil
  ) -> [ServiceGroupConfiguration.ServiceConfiguration] {
    var services: [ServiceGroupConfiguration.ServiceConfiguration] =
      standby ?? [
        .init(service: ChangePumpService(pump: pump)),
        .init(service: JournalUpkeep(journal: journal)),
      ]
    if standby == nil {
      if let forwarding = store.intentForwarding {
        services.append(.init(service: ForwardedIntentServer(store: forwarding, handler: handler)))
      }
      if let relay = store.eventRelay {
        services.append(.init(service: EventRelay(store: relay, host: host, logger: logger)))
      }
      if let shared = store.leadership, let leadership {
        services.append(
          .init(service: LeadershipLoss(store: shared, writer: journal.writer, leadership: leadership, logger: logger), successTerminationBehavior: .ignore))
      }
    }
    if notifier.isListening {
      let interval = Duration.milliseconds(Int64(max(0.05, live.withLock { $0.statusInterval }) * 1000))
      services.append(.init(service: StatusTicker(notifier: notifier, interval: interval) { [self] in statusLine() }))
    }
    // Before the socket server, so that it stops after it: health checks are answered
    // (not ready) while the daemon drains.
    let options = live.withLock { $0 }
    #if HTTP
      if options.http != nil || adoptedHTTP != nil {
        services.append(
          .init(service: HTTPListener(parts: self, address: options.http, adopted: adoptedHTTP, allowRemote: options.httpAllowRemote)))
      }
    #endif
    services.append(.init(service: SocketServer(parts: self, listening: listening, leadership: leadership), successTerminationBehavior: .gracefullyShutdownGroup))
    return services
  }

  /// Runs `services` as one group until it ends (a stop, a change of lead that
  /// `leadership` ends it for, or a service that ends the group), then lets go of the
  /// daemon's own event loops.
  func run(_ services: [ServiceGroupConfiguration.ServiceConfiguration], leadership: Leadership) async throws {
    let group = ServiceGroup(configuration: ServiceGroupConfiguration(services: services, logger: logger))
    await leadership.attach(group)
    do {
      try await group.run()
    } catch {
      await shutdown()
      throw error
    }
    await shutdown()
  }

  /// Lets go of what the services used: the daemon's own event loops.
  func shutdown() async {
    try? await ownEventLoops?.shutdownGracefully()
  }

  // MARK: Connections

  /// Admits a new connection with the role its peer credentials give, or refuses it when
  /// `--max-connections` are open. Runs on the connection's event loop.
  ///
  /// A connection the previous process handed over (``ConnectionHandOver``) comes with its
  /// state: its watches, registered again as of `revision`, the output it was to be sent,
  /// and the input it had sent.
  func accept(_ channel: any Channel, credentials: PeerCredentials?, handed: HandOverState.Connection? = nil, revision: UInt64 = 0) throws {
    let options = live.withLock { $0 }
    let policy = AccessPolicy(
      ownUID: getuid(), readers: options.readers.principals, operators: options.operators.principals, admins: options.admins.principals)
    let role = credentials.flatMap { policy.role(uid: $0.uid, gid: $0.gid) }
    try accept(channel, role: role, peer: credentials?.description ?? "unknown peer", options: options, handed: handed, revision: revision)
  }

  /// Admits a connection whose role is already known (an inspector WebSocket, bridged by
  /// ``WebSocketBridge``, with `bridged`): the same pipeline, limits and accounting as the
  /// socket's.
  func accept(
    _ channel: any Channel, role: Role?, peer: String, options: DaemonOptions? = nil, handed: HandOverState.Connection? = nil,
    revision: UInt64 = 0, bridged: Bool = false
  ) throws {
    let options = options ?? live.withLock { $0 }
    let maxConnections = options.maxConnections
    if stats.clients >= maxConnections {
      logger.warning("refused a connection (\(peer)): \(maxConnections) are open")
      Self.refuse(channel, limit: maxConnections)
      return
    }
    let id = nextConnectionID.wrappingAdd(1, ordering: .relaxed).oldValue
    stats.clientConnected()
    channel.closeFuture.whenComplete { [stats] _ in stats.clientDisconnected() }
    // Nearest the socket first: the writer of the connection's outbox, the line framing,
    // the parsing, and the requests.
    let writer = OutboxWriter(
      id: id, eventLoop: channel.eventLoop, options: options, hub: hub, registry: connections, logger: logger, bridged: bridged)
    let connection = ConnectionContext(id: id, role: role, outbox: writer.outbox)
    let pipeline = channel.pipeline.syncOperations
    // A connection handed over starts behind a closed gate, nearest the socket (the others
    // get theirs only at a hand-over's pause: serving, a gate would be one more handler
    // every read goes through). So does one accepted once a hand-over has begun: the
    // listening socket had taken it before it closed, and its client waits for the next
    // process as the others do.
    let lateForHandOver = handed == nil && handingOver.load(ordering: .acquiring)
    if let handed {
      try pipeline.addHandler(HandOverGate(handedOver: handed.input))
    } else if lateForHandOver {
      try pipeline.addHandler(HandOverGate(handedOver: []))
    }
    try pipeline.addHandler(writer)
    try pipeline.addHandler(LineDecoder(maxLineLength: max(1, options.maxLineBytes)))
    try pipeline.addHandler(RPCLineCodec(logger: logger))
    try pipeline.addHandler(RequestStage(connection: connection, handler: handler, hub: hub, options: options, logger: logger, batcher: batcher))
    if let handed {
      // What the client was to be sent goes out first, then the watches go on.
      if let output = handed.output, !output.isEmpty { writer.outbox.send(Array(output)) }
      hub.restore(handed.watches, outbox: writer.outbox, revision: revision)
    }
    // A connection accepted while the daemon drains may have missed the closing of every
    // connection (`ConnectionRegistry.closeAll`); in a daemon that changes role rather
    // than exits, it would stay open with nobody to answer it.
    if handler.stopping.load(ordering: .acquiring) && !lateForHandOver { channel.close(promise: nil) }
  }

  private static func refuse(_ channel: any Channel, limit: Int) {
    let error = RPCError(
      code: -32000, message: "too many connections: the daemon serves at most \(limit) at once; try again later")
    let line = RPCResponse(id: .null, error: error).json.jsonLine
    channel.writeAndFlush(ByteBuffer(bytes: line)).whenComplete { _ in channel.close(promise: nil) }
  }

  // MARK: The HTTP listener

  #if HTTP
    /// Who an inspector WebSocket may be, by the token file in force.
    var httpAccess: HTTPAccess { HTTPAccess(tokenFile: live.withLock { $0.httpTokenFile }) }
  #endif

  /// Why `/readyz` says not ready, or nil when the daemon is ready.
  func notReadyReason() -> String? {
    if handler.stopping.load(ordering: .relaxed) { return "stopping" }
    if !serving.load(ordering: .relaxed) { return "the socket does not listen yet" }
    if let refusal = journal.refusal { return "the journal refuses writes (\(refusal.cause)): \(refusal.reason)" }
    return nil
  }

  // MARK: Settings and status

  /// SIGHUP: `RELOADING=1`, the settings file read again over the command line's options,
  /// then `READY=1`. A file with a mistake is reported and the settings in force stay.
  func reload() {
    notifier.reloading()
    defer { notifier.ready(status: statusLine()) }
    guard let path = commandLine.config else {
      logger.notice("SIGHUP: there is no --config file to read again; nothing changed")
      return
    }
    do {
      let next = try ConfigurationFile(path: path).apply(to: commandLine)
      let previous = live.withLock { live in
        defer { live = next }
        return live
      }
      if previous.http != next.http || previous.httpAllowRemote != next.httpAllowRemote {
        logger.notice("reloaded \(path): http and http-allow-remote take effect at the next start")
      }
      if previous.store != next.store {
        logger.notice("reloaded \(path): store takes effect at the next start")
      }
      logLevel.value = Logger.Level(rawValue: next.logLevel) ?? .info
      logger.notice(
        "reloaded \(path): readers \(next.readers), operators \(next.operators), admins \(next.admins), max-connections \(next.maxConnections), max-in-flight \(next.maxInFlight), log-level \(next.logLevel)"
      )
    } catch {
      logger.error("the settings were not reloaded, the ones in force stay: \(error)")
    }
  }

  /// The one line `systemctl status` shows.
  func statusLine() -> String {
    let snapshot = stats.snapshot()
    let line = "revision \(host.revision), \(snapshot.clients) clients, \(String(format: "%.1f", snapshot.intentsPerSecond)) intents/s"
    guard let refusal = journal.refusal else { return line }
    return "WRITES REFUSED (\(refusal.cause)): \(refusal.reason); \(refusal.held) revisions held; " + line
  }

  /// Connections are file descriptors: lift the soft limit to the hard one, so that
  /// `--max-connections` (not a default of 1,024 descriptors) is what bounds them.
  private static func raiseOpenFileLimit(logger: Logger) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    let soft = limit.rlim_cur
    limit.rlim_cur = limit.rlim_max
    if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
      logger.debug("open file limit raised from \(soft) to \(limit.rlim_max)")
    }
  }
}
