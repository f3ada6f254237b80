import ArborLocking
import ArborRPC
import ArborSystemd
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's socket as a service: binds it (or adopts systemd's), accepts clients with
/// their roles and limits, and on graceful shutdown stops accepting, lets running intents
/// finish, saves the final snapshot and closes every connection once it has written what
/// it had queued. The services before it in the group (the change pump, the journal's
/// upkeep, the status ticker) stop after it has.
struct SocketServer: Service, CustomStringConvertible {
  var description: String { "SocketServer(\(parts.name))" }

  let parts: DaemonParts
  /// Called once the socket listens (in-process hosts wait for it).
  let listening: @Sendable () -> Void
  /// Whether the services end because the daemon stops (its connections may then go to
  /// the next process) or because the lead changed hands (the process goes on serving).
  var leadership: Leadership? = nil

  func run() async throws {
    let (serverChannel, kept) = try await bind()
    // The connections the previous process handed over, before the first new one: the
    // socket accepts nobody until their watches are registered, or a new client's intent
    // would move the tree past the revision they go on from, and each would get a resync
    // (the whole state) instead of its next patch. New clients wait in the backlog.
    await ConnectionHandOver.adopt(parts)
    try await serverChannel.setOption(.autoRead, value: true).get()
    DaemonUpgrade.serving.withLock { $0 = (parts, serverChannel) }
    parts.serving.store(true, ordering: .relaxed)
    parts.notifier.ready(status: parts.statusLine())
    listening()
    let watchdog = parts.notifier.watchdogInterval.map {
      Watchdog(interval: $0, host: parts.host, notifier: parts.notifier, logger: parts.logger)
    }
    defer { watchdog?.stop() }
    let reloads = SignalWatch(SIGHUP) { [parts] in parts.reload() }
    defer { reloads.cancel() }
    // The daemon stops accepting: its listening channel closes, or, at a stop that hands
    // the connections over, only stops reading until the hand-over is done. NIO closes a
    // connection it accepted whose setup ends after its listening channel closed: that
    // client saw a reset where the others went over to the next process (in about one
    // upgrade in two, with four clients connecting in a loop).
    // (A promise completed twice keeps its first result.)
    let stoppedAccepting = serverChannel.eventLoop.makePromise(of: Void.self)
    serverChannel.closeFuture.cascade(to: stoppedAccepting)
    await withGracefulShutdownHandler {
      // Cancelled when another service of the group failed (the HTTP listener could not
      // bind): stop accepting, and drain as on a graceful stop.
      await withTaskCancellationHandler {
        try? await stoppedAccepting.futureResult.get()
      } onCancel: {
        serverChannel.close(promise: nil)
      }
    } onGracefulShutdown: { [parts] in
      // An upgrade's stop is not the service's: its new process is the main one already.
      if UpgradeHandOff.current == nil { parts.notifier.stopping(status: "stopping: draining intents, saving a snapshot") }
      if UpgradeHandOff.current != nil || parts.handsOverConnections {
        serverChannel.setOption(.autoRead, value: false).whenComplete { _ in stoppedAccepting.succeed(()) }
      } else {
        serverChannel.close(promise: nil)
      }
    }
    DaemonUpgrade.serving.withLock { $0 = nil }
    // Not cancelled with the group: the final snapshot is saved however the stop came.
    let upgraded = await Task { [self] in await drain() }.value
    try? await serverChannel.close()
    // A socket the service manager keeps stays where it is: the next process serves it; so
    // does one handed to an upgrade's new process. One an upgrade passed to this process
    // is this daemon's own.
    let ownSocket = parts.adopted == nil || parts.adopted?.name == UpgradeIntake.listenerName
    if ownSocket && !kept && !upgraded { unlink(parts.paths.socket) }
  }

  /// Binds the socket with a bootstrap whose connections get their pipeline
  /// (``DaemonParts/accept(_:credentials:)``); says whether the service manager keeps it.
  private func bind() async throws -> (any Channel, kept: Bool) {
    let parts = self.parts
    // The descriptor limit raised and the reserve taken before the first connection.
    let budget = DescriptorBudget.shared
    parts.logger.debug(
      "file descriptors: RLIMIT_NOFILE \(budget.limit), \(budget.connectionLimit) for connections, \(budget.httpLimit) of them for HTTP")
    let bootstrap = ServerBootstrap(group: parts.eventLoops)
      .serverChannelOption(.backlog, value: 1024)
      // Accepting starts once a hand-over's connections are adopted (``run()``).
      .serverChannelOption(.autoRead, value: false)
      .serverChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(AcceptGate(http: false, logger: parts.logger)) }
      }
      .childChannelOption(.allowRemoteHalfClosure, value: true)
      .childChannelInitializer { channel in
        PeerCredentials.of(channel).flatMapThrowing { credentials in try parts.accept(channel, credentials: credentials) }
      }
    if let adopted = parts.adopted {
      let channel = try await bootstrap.withBoundSocket(adopted.descriptor).get()
      let from = adopted.name == UpgradeIntake.listenerName ? "the daemon before it" : "systemd"
      parts.logger.info("serving \(parts.host.rootType) at revision \(parts.host.revision) on the socket \(from) passed (\(adopted.name))")
      return (channel, false)
    }
    guard parts.notifier.descriptorStoreSize > 0 else {
      // Bound here rather than by NIO, whose server channel removes the socket file when it
      // closes: an upgrade's new process serves the same socket after this one closed it.
      let descriptor = try ListeningSocket.bound(to: parts.paths.socket, backlog: 1024)
      let channel = try await bootstrap.withBoundSocket(descriptor).get()
      chmod(parts.paths.socket, 0o660)
      parts.logger.info("serving \(parts.host.rootType) at revision \(parts.host.revision) on \(parts.paths.socket)")
      return (channel, false)
    }
    // The service manager keeps descriptors across restarts: the socket goes there, and the
    // next process adopts it as it would a socket unit's.
    if let descriptor = ListeningSocket.duplicateOfKept(parts.paths.socket) {
      let channel = try await bootstrap.withBoundSocket(descriptor).get()
      parts.logger.info("serving \(parts.host.rootType) at revision \(parts.host.revision) on \(parts.paths.socket) again")
      return (channel, true)
    }
    let descriptor = try ListeningSocket.bound(to: parts.paths.socket, backlog: 1024)
    chmod(parts.paths.socket, 0o660)
    let kept = parts.notifier.store(descriptor, name: "socket")
    if kept {
      ListeningSocket.keep(descriptor, for: parts.paths.socket)
    } else {
      parts.logger.warning("the service manager did not take the socket to keep across a restart (FDSTORE=1)")
    }
    let channel = try await bootstrap.withBoundSocket(descriptor).get()
    parts.logger.info(
      "serving \(parts.host.rootType) at revision \(parts.host.revision) on \(parts.paths.socket)\(kept ? ", kept by the service manager across restarts" : "")")
    return (channel, kept)
  }

  /// The daemon is stopping, not changing roles: a leader that lost the lead goes on as a
  /// standby in this process, and its connections must not wait in the service manager's
  /// store for a next process.
  private var isExiting: Bool {
    guard let state = leadership?.state else { return true }
    return state == .stopping || state == .stopped
  }

  /// Stopping: no new clients. Running intents finish (10 s at most), the journal is
  /// written and a snapshot saved, then every connection writes what it has queued and
  /// closes; those that cannot in time (a client that does not read) are closed.
  /// Returns whether the connections went to an upgrade's new process.
  private func drain() async -> Bool {
    let logger = parts.logger
    // Handing over (a leader that exits): the lines each connection has read are answered
    // first; nothing more is read here. A standby has no revision of its own to hand over
    // with: its connections end as at a plain stop.
    // Under an upgrade (``DaemonUpgrade``) they go to its new process, otherwise to the
    // service manager's store.
    let upgrade = isExiting ? UpgradeHandOff.current : nil
    let keeper: any DescriptorKeeper = upgrade ?? parts.notifier
    let handsOver = (parts.handsOverConnections || upgrade != nil) && isExiting && parts.journal.standby == nil
    let stopping = ContinuousClock.now
    if handsOver { await ConnectionHandOver.pause(parts) }
    let paused = ContinuousClock.now
    logger.info("stopping: waiting for \(parts.stats.intentsInFlight) running intents")
    parts.handler.stopping.store(true, ordering: .releasing)
    parts.serving.store(false, ordering: .relaxed)
    if await !parts.stats.waitForIntentsToFinish(until: .now + .seconds(10)) {
      logger.warning("stopping with \(parts.stats.intentsInFlight) intents still running after 10 s")
    }
    // A standby has nothing of its own to save: the leader keeps the store. A hand-over
    // saves no final snapshot either: the next process goes on from the journal, which has
    // every revision once it is written, and a final snapshot would only lengthen the wait
    // of every client. An upgrade's new process restored the state while this one served;
    // the service manager's next process replays the journal after the last snapshot,
    // unless that is more than the daemon's own compactions leave (then it is saved).
    if parts.journal.standby == nil {
      parts.journal.stop()
      let journalOnly = handsOver && (upgrade != nil || parts.journal.nextStartReplaysLittle(at: parts.host.revision))
      do {
        if journalOnly {
          try await parts.journal.handOverStore()
          logger.info("journalled revision \(parts.host.revision) to \(parts.store.location) in \((ContinuousClock.now - paused).logged)")
        } else {
          try await parts.journal.saveFinalSnapshot()
          logger.info("saved revision \(parts.host.revision) to \(parts.store.location) in \((ContinuousClock.now - paused).logged)")
        }
      } catch {
        logger.error("the final \(journalOnly ? "revisions" : "snapshot") could not be saved: \(error)")
      }
    }
    // The connections go to the next process with the revision saved. Their sockets stay
    // open in the service manager's store; closing them here ends nothing for their
    // clients. The others end as at a plain stop.
    if handsOver {
      let saved = ContinuousClock.now
      if await ConnectionHandOver.handOver(parts, to: keeper) != nil, upgrade == nil { parts.handedOver.store(true, ordering: .relaxed) }
      logger.info(
        "handing over took \((ContinuousClock.now - stopping).logged): \((paused - stopping).logged) answering what was read, \((saved - paused).logged) saving, \((ContinuousClock.now - saved).logged) storing the connections")
    }
    if let upgrade {
      if await upgrade.finish(lettingGo: parts.letGoOfStateDirectory) {
        parts.handedOver.store(true, ordering: .relaxed)
        logger.notice("handed over to pid \(upgrade.pid)")
      } else {
        logger.error("the hand-over to pid \(upgrade.pid) failed: it does not take over, and this daemon's connections close")
      }
    }
    parts.connections.finishAll()
    _ = await parts.connections.waitUntilEmpty(until: .now + .milliseconds(500))
    parts.connections.closeAll()
    // An inspector WebSocket is told to come back (1012) once its connection here ended;
    // the HTTP listener, which stops after this service, would otherwise close it first.
    if handsOver {
      let parts = self.parts
      _ = await parts.webSocketsEnded.wait(until: .now + .milliseconds(500)) { parts.webSocketsServing.load(ordering: .acquiring) == 0 }
    }
    return upgrade != nil
  }
}
