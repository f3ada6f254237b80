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
  let options: DaemonOptions
  let paths: DaemonPaths
  let store: Store
  /// The newest revision the journal holds (or a snapshot stands for).
  let journalledThrough: UInt64
  /// The revision whose state the store holds as the tree is now.
  let base: UInt64?
  /// The state the tree was restored from, when the store held it as it is.
  let restoredState: JSONValue?
  let logger: Logger

  func run() async throws {
    let stats = DaemonStats()
    let hub = WatchHub(historyLimit: options.history, logger: logger)
    var initial: (revision: UInt64, value: JSONValue)?
    if let base, let restoredState { initial = (base, restoredState) }
    let pump = ChangePump(host: host, hub: hub, initial: initial, logger: logger)
    let journal = DaemonJournal(
      store: store, host: host, hub: hub, options: options, journalledThrough: journalledThrough,
      snapshotRevision: base, logger: logger)
    journal.follow(holding: base)
    let handler = RequestHandler(host: host, hub: hub, journal: journal, stats: stats, name: name, logger: logger) {
      journal.follow(holding: nil)
      pump.restart()
    }
    let policy = AccessPolicy(
      ownUID: getuid(), readers: options.readers.principals, operators: options.operators.principals,
      admins: options.admins.principals)
    let connections = ConnectionRegistry()
    let batcher = LoopBatcher()
    let nextID = Atomic<Int>(1)
    let maxConnections = options.maxConnections
    let options = options
    let logger = logger

    Self.raiseOpenFileLimit(logger: logger)
    let notifier = SystemdNotifier()
    // Socket activation: the socket systemd passed, else our own.
    let adopted = ListenSockets.take().first
    if adopted == nil {
      do {
        try SocketFile.prepare(paths.socket)
      } catch {
        throw DaemonStartError(error.description)
      }
    }
    // One event loop per core unless `--event-loops` says otherwise.
    let ownGroup = options.eventLoops > 0 ? MultiThreadedEventLoopGroup(numberOfThreads: options.eventLoops) : nil
    defer { if let ownGroup { ownGroup.shutdownGracefully { _ in } } }
    let bootstrap = ServerBootstrap(group: ownGroup ?? MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.backlog, value: 1024)
      .childChannelOption(.allowRemoteHalfClosure, value: true)
      .childChannelInitializer { channel in
        PeerCredentials.of(channel).flatMapThrowing { credentials in
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
    notifier.ready(status: Self.statusLine(host: host, stats: stats))
    let watchdog = notifier.watchdogInterval.map { Watchdog(interval: $0, host: host, notifier: notifier, logger: logger) }
    defer { watchdog?.stop() }

    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        group.addTask { await pump.run() }
        group.addTask { await journal.compactPeriodically() }
        if notifier.isListening {
          group.addTask {
            while !Task.isCancelled {
              try? await Task.sleep(for: .seconds(5))
              notifier.status(Self.statusLine(host: host, stats: stats))
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

  /// The one line `systemctl status` shows.
  static func statusLine(host: any TreeHost, stats: DaemonStats) -> String {
    let snapshot = stats.snapshot()
    return "revision \(host.revision), \(snapshot.clients) clients, \(String(format: "%.1f", snapshot.intentsPerSecond)) intents/s"
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
