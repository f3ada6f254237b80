import Arbor
import ArborJSON
import ArborRPC
import ArborStore
import ArborSystemd
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import NIOConcurrencyHelpers
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon as a service of swift-service-lifecycle: binds the socket, accepts clients,
/// pumps changes to watchers, and on graceful shutdown drains and saves.
struct DaemonService: Service, CustomStringConvertible {
  /// What swift-service-lifecycle logs for the service: its name, never its fields (the
  /// restored state of a large tree would take seconds to describe).
  var description: String { "DaemonService(\(name))" }

  let name: String
  let host: any TreeHost
  /// The options as they were at start: the command line with the settings file applied.
  let options: DaemonOptions
  /// The command line's options alone: a reload applies the settings file over them.
  let commandLine: DaemonOptions
  let logLevel: SharedLogLevel
  let paths: DaemonPaths
  /// The socket systemd passed (socket activation); nil when the daemon binds its own,
  /// whose path was checked before the store was opened.
  let adopted: ListenSockets.Socket?
  let store: Store
  /// The newest revision the journal holds (or a snapshot stands for).
  let journalledThrough: UInt64
  /// The revision whose state the store holds as the tree is now.
  let base: UInt64?
  /// The state the tree was restored from, when the store held it as it is.
  let restoredState: JSONValue?
  let logger: Logger
  /// Called once the socket listens (in-process hosts wait for it).
  var listening: @Sendable () -> Void = {}

  func run() async throws {
    let stats = DaemonStats()
    let hub = WatchHub(historyLimit: options.history, logger: logger)
    var initial: (revision: UInt64, value: JSONValue)?
    if let base, let restoredState { initial = (base, restoredState) }
    let journal = DaemonJournal(
      store: store, host: host, hub: hub, options: options, journalledThrough: journalledThrough, logger: logger)
    // Under --fsync always, watchers see a revision once it is on disk.
    let pump = ChangePump(
      host: host, hub: hub, initial: initial, durability: options.fsync == .always ? journal.writer : nil, logger: logger)
    journal.follow(holding: base)
    let handler = RequestHandler(host: host, hub: hub, journal: journal, stats: stats, name: name, logger: logger) {
      journal.follow(holding: nil)
      pump.restart()
    }
    // Roles and limits as the settings are now: a reload changes them for the connections
    // that come after it.
    let live = NIOLockedValueBox(options)
    let connections = ConnectionRegistry()
    let batcher = LoopBatcher()
    let nextID = Atomic<Int>(1)
    let options = options
    let logger = logger

    Self.raiseOpenFileLimit(logger: logger)
    let notifier = SystemdNotifier()
    // One event loop per core unless `--event-loops` says otherwise.
    let ownGroup = options.eventLoops > 0 ? MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops) : nil
    defer { if let ownGroup { ownGroup.shutdownGracefully { _ in } } }
    let bootstrap = ServerBootstrap(group: ownGroup ?? MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.backlog, value: 1024)
      .childChannelOption(.allowRemoteHalfClosure, value: true)
      .childChannelInitializer { channel in
        PeerCredentials.of(channel).flatMapThrowing { credentials in
          let options = live.withLockedValue { $0 }
          let maxConnections = options.maxConnections
          let policy = AccessPolicy(
            ownUID: getuid(), readers: options.readers.principals, operators: options.operators.principals,
            admins: options.admins.principals)
          if stats.clients >= maxConnections {
            logger.warning("refused a connection (\(credentials?.description ?? "unknown peer")): \(maxConnections) are open")
            Self.refuse(channel, limit: maxConnections)
            return
          }
          let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
          let role = credentials.flatMap { policy.role(uid: $0.uid, gid: $0.gid) }
          stats.clientConnected()
          channel.closeFuture.whenComplete { _ in stats.clientDisconnected() }
          try channel.pipeline.syncOperations.addHandler(
            ConnectionHandler(
              id: id, role: role, handler: handler, hub: hub, options: options, logger: logger, registry: connections, batcher: batcher))
        }
      }
    let serverChannel: any Channel
    if let adopted {
      serverChannel = try await bootstrap.withBoundSocket(adopted.descriptor).get()
      logger.info("serving \(host.rootType) at revision \(host.revision) on the socket systemd passed (\(adopted.name))")
    } else {
      serverChannel = try await bootstrap.bind(unixDomainSocketPath: paths.socket).get()
      chmod(paths.socket, 0o660)
      logger.info("serving \(host.rootType) at revision \(host.revision) on \(paths.socket)")
    }
    // Restored, journalling and listening: ready.
    notifier.ready(status: Self.statusLine(host: host, stats: stats, journal: journal))
    listening()
    let watchdog = notifier.watchdogInterval.map { Watchdog(interval: $0, host: host, notifier: notifier, logger: logger) }
    defer { watchdog?.stop() }
    let commandLine = self.commandLine
    let logLevel = self.logLevel
    let reloads = SignalWatch(SIGHUP) {
      Self.reload(commandLine: commandLine, into: live, logLevel: logLevel, notifier: notifier, logger: logger) {
        Self.statusLine(host: host, stats: stats, journal: journal)
      }
    }
    defer { reloads.cancel() }

    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        group.addTask { await pump.run() }
        group.addTask { await journal.compactPeriodically() }
        group.addTask { await journal.retryWhileRefused() }
        if notifier.isListening {
          let interval = Duration.milliseconds(Int64(max(0.05, options.statusInterval) * 1000))
          group.addTask {
            while !Task.isCancelled {
              try? await Task.sleep(for: interval)
              notifier.status(Self.statusLine(host: host, stats: stats, journal: journal))
            }
          }
        }
        try? await serverChannel.closeFuture.get()
        // Stopping: no new clients. Let running intents finish, then save.
        logger.info("stopping: waiting for \(stats.intentsInFlight) running intents")
        handler.stopping.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(10)
        while stats.intentsInFlight > 0 && ContinuousClock.now < deadline {
          try? await Task.sleep(for: .milliseconds(10))
        }
        journal.stop()
        do {
          try await journal.saveFinalSnapshot()
          logger.info("saved revision \(host.revision) to \(store.path)")
        } catch {
          logger.error("the final snapshot could not be saved: \(error)")
        }
        // Every connection writes what it has queued and closes; those that cannot in
        // time (a client that does not read) are closed.
        connections.finishAll()
        let closing = ContinuousClock.now + .milliseconds(500)
        while !connections.isEmpty && ContinuousClock.now < closing {
          try? await Task.sleep(for: .milliseconds(10))
        }
        connections.closeAll()
        group.cancelAll()
      }
    } onGracefulShutdown: {
      notifier.stopping(status: "stopping: draining intents, saving a snapshot")
      serverChannel.close(promise: nil)
    }
    if adopted == nil { unlink(paths.socket) }
  }

  /// SIGHUP: `RELOADING=1`, the settings file read again over the command line's options,
  /// then `READY=1`. A file with a mistake is reported and the settings in force stay.
  static func reload(
    commandLine: DaemonOptions, into live: NIOLockedValueBox<DaemonOptions>, logLevel: SharedLogLevel, notifier: SystemdNotifier,
    logger: Logger, status: () -> String
  ) {
    notifier.reloading()
    defer { notifier.ready(status: status()) }
    guard let path = commandLine.config else {
      logger.notice("SIGHUP: there is no --config file to read again; nothing changed")
      return
    }
    do {
      let next = try ConfigurationFile(path: path).apply(to: commandLine)
      live.withLockedValue { $0 = next }
      logLevel.value = Logger.Level(rawValue: next.logLevel) ?? .info
      logger.notice(
        "reloaded \(path): readers \(next.readers), operators \(next.operators), admins \(next.admins), max-connections \(next.maxConnections), max-in-flight \(next.maxInFlight), log-level \(next.logLevel)")
    } catch {
      logger.error("the settings were not reloaded, the ones in force stay: \(error)")
    }
  }

  /// The one line `systemctl status` shows.
  static func statusLine(host: any TreeHost, stats: DaemonStats, journal: DaemonJournal) -> String {
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

  private static func refuse(_ channel: any Channel, limit: Int) {
    let error = RPCError(
      code: -32000, message: "too many connections: the daemon serves at most \(limit) at once; try again later")
    let line = RPCResponse(id: .null, error: error).json.jsonLine
    channel.writeAndFlush(ByteBuffer(bytes: line)).whenComplete { _ in channel.close(promise: nil) }
  }
}
