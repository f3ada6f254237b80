import Arbor
import ArborJSON
import ArborRPC
import ArborLocking
import ArborStorage
// The backends, named only where the store is opened (``openStore(_:logger:)``): the rest
// of the daemon sees `any StateStore` and asks it what it can do.
import ArborStore
#if PostgreSQL
  import ArborPostgres
#endif
import NIOPosix
import ArborSystemd
import Dependencies
import Foundation
import Logging
import ServiceLifecycle

#if canImport(Glibc)
  import Glibc
#endif

/// Hosts one tree of models as a daemon: restores its last state from the store (the newest
/// snapshot and the journal after it) or builds a fresh root, anchors it, and serves
/// JSON-RPC 2.0 on a Unix socket until SIGTERM or SIGINT, journalling every revision; then
/// it stops accepting, lets running intents finish, writes a final snapshot and returns.
///
/// ```swift
/// @main struct Counterfactd: AsyncParsableCommand {
///   @OptionGroup var options: DaemonOptions
///   func run() async throws {
///     try await ArborDaemon(name: "counterfactd", options: options) { AppModel() }.run()
///   }
/// }
/// ```
public struct ArborDaemon<Root: Model>: Sendable {
  public let name: String
  public let options: DaemonOptions
  public let paths: DaemonPaths
  let dependencies: @Sendable (inout DependencyValues) -> Void
  let makeRoot: @Sendable () -> Root

  /// - Parameters:
  ///   - name: the daemon's name: its socket and state directory are named after it.
  ///   - options: the command-line options (see ``DaemonOptions``).
  ///   - environment: where `$RUNTIME_DIRECTORY`, `$STATE_DIRECTORY` and the XDG paths are read.
  ///   - dependencies: overrides for the dependencies of every model in the tree.
  ///   - makeRoot: builds a fresh root when there is no saved state.
  public init(
    name: String, options: DaemonOptions, environment: [String: String] = ProcessInfo.processInfo.environment,
    dependencies: @escaping @Sendable (inout DependencyValues) -> Void = { _ in },
    makeRoot: @escaping @Sendable () -> Root
  ) {
    self.name = name
    self.options = options
    self.paths = DaemonPaths(name: name, options: options, environment: environment)
    self.dependencies = dependencies
    self.makeRoot = makeRoot
  }

  /// Runs the daemon until SIGTERM or SIGINT.
  public func run() async throws {
    try await run(until: nil, handlingSignals: true) { (_: ModelAnchor<Root>) in }
  }

  /// Runs the daemon until `stop` is triggered, or SIGTERM or SIGINT when
  /// `handlingSignals`; `started` gets the tree's anchor once the daemon listens.
  /// Tests host a daemon in their own process this way (`ArborDaemonTesting`).
  ///
  /// ```swift
  /// let stop = DaemonStop()
  /// async let done: Void = daemon.run(until: stop, handlingSignals: false) { anchor in print(anchor.model.counters) }
  /// await stop.trigger()
  /// try await done
  /// ```
  public func run(until stop: DaemonStop?, handlingSignals: Bool, started: @escaping @Sendable (ModelAnchor<Root>) -> Void) async throws {
    if options.version {
      print(Self.versionLine(name: name))
      return
    }
    // To journald with structured fields when standard error is the journal (under
    // systemd), plain lines on standard error otherwise.
    // The level is shared by every copy of the logger, so that a reload changes it.
    let identifier = name
    let level = SharedLogLevel(.info)
    var logger = Logger(label: name) { label -> any LogHandler in
      var inner = JournaldLogHandler.forStandardError(label: label, identifier: identifier)
      inner.logLevel = .trace
      return SharedLevelLogHandler(inner: inner, shared: level)
    }
    // The settings file (`--config`) over the command line's options.
    var options = self.options
    if let path = options.config {
      do {
        options = try ConfigurationFile(path: path).apply(to: options)
      } catch {
        throw DaemonStartError("cannot start: \(error)")
      }
    }
    logger.logLevel = Logger.Level(rawValue: options.logLevel) ?? .info
    // The socket first: a daemon refused for a live socket touches nothing in the state
    // directory. Then the state directory's lock: one daemon owns the state at a time, and
    // nothing in the directory is opened before it has the lock.
    // The sockets systemd passed: the daemon's own, and the HTTP listener's if a socket
    // unit named it `http`.
    // A hand-over's connections and state (``ConnectionHandOver``) wait for the socket server.
    // An upgrade's new process (``DaemonUpgrade``) checks that it can restore the old
    // one's state (or the old one serves on), takes its descriptors from it, and waits for
    // it to exit, before anything else.
    DaemonUpgrade.recordExecutable()
    // Its tree, restored while the old process serves, follows the old one's journal (an
    // SQLite store only) until little is left to replay once the old process has stopped.
    let prepared = PreparedTree<Root>(dependencies: dependencies)
    let (storeFile, upgradeLogger) = (options.store == nil ? paths.storeFile : nil, logger)
    let all =
      ListenSockets.take()
      + (try await UpgradeIntake.take(logger: logger) { state in
        try prepared.prepare(from: state)
        if let storeFile { prepared.catchUp(from: storeFile, logger: upgradeLogger) }
      })
    HandOverIntake.offer(all.filter { HandOverState.isHandedOver($0.name) })
    // The HTTP listener's own socket, kept by the process before this one, waits for the
    // listener (which serves it if --http still names its address).
    #if HTTP
      let passed = KeptHTTPSocket.intake(all.filter { !HandOverState.isHandedOver($0.name) })
    #else
      let passed = all.filter { !HandOverState.isHandedOver($0.name) && $0.name != HandOverState.httpListenerName }
      for kept in all where kept.name == HandOverState.httpListenerName {
        close(kept.descriptor)
        SystemdNotifier().removeStored(name: kept.name)
      }
    #endif
    let adopted = passed.first { $0.name != "http" }
    let adoptedHTTP = passed.first { $0.name == "http" }
    try Self.checkHTTPOptions(options, adoptedHTTP: adoptedHTTP != nil)
    #if HTTP
      if options.http == nil || adoptedHTTP != nil { KeptHTTPSocket.discard(notifier: SystemdNotifier(), logger: logger) }
    #endif
    if adopted == nil {
      do {
        try SocketFile.prepare(paths.socket)
      } catch {
        throw DaemonStartError(error.description)
      }
    }
    let (store, lock) = try await openStore(options, logger: logger)
    defer { lock?.release() }
    let context = StartContext(
      options: options, level: level, adopted: adopted, adoptedHTTP: adoptedHTTP, stop: stop, handlingSignals: handlingSignals,
      logger: logger, stateLock: lock)
    try await serveFollowingTheLead(store, context, prepared: prepared, started: started)
  }

  /// Serves `store` as its leader, or as a standby of the daemon that leads it, and goes
  /// from one to the other as the lead changes hands, until the daemon stops: the
  /// ``LeadershipStateMachine`` says what to serve next, and this runs what it says. A
  /// store one daemon owns (no ``StateStore/leadership``) is served as its leader, once.
  private func serveFollowingTheLead(
    _ store: any StateStore, _ context: StartContext, prepared: PreparedTree<Root>, started: @escaping @Sendable (ModelAnchor<Root>) -> Void
  ) async throws {
    let logger = context.logger
    let shared = store.leadership
    let leadership = Leadership(
      LeadershipStateMachine(
        sharedStore: shared != nil, leading: shared?.isLeading ?? true, term: shared?.term ?? 0, socketAdopted: context.adopted != nil),
      location: store.location, logger: logger)
    // The stop (SIGTERM, SIGINT, or the caller's `DaemonStop`) goes to the leadership, which
    // ends whatever role is served, or the change of role under way.
    let stop = context.stop ?? DaemonStop()
    await stop.attach(leadership)
    var signals = context.handlingSignals ? [SIGTERM, SIGINT].map { SignalWatch($0) { Task { await stop.trigger() } } } : []
    // SIGUSR2: an upgrade (the binary started again, handed the socket and connections).
    // `daemon.upgrade` too, through the same stop. A daemon hosted in another program's
    // process (which does not handle its signals) is not upgraded.
    if context.handlingSignals {
      DaemonUpgrade.stopper.withLock { $0 = { await stop.trigger() } }
      signals.append(
        SignalWatch(SIGUSR2) {
          Task { if case .success = await DaemonUpgrade.begin(logger: logger) { await stop.trigger() } }
        })
    }
    defer { signals.forEach { $0.cancel() } }
    var next = leadership.start()
    do {
      while true {
        switch next {
        case .serve(.leader):
          try await runLeader(store, context, leadership: leadership, prepared: prepared, started: started)
          next = leadership.servicesEnded()
        case .serve(.standby):
          if let shared { try await runStandby(shared, context, leadership: leadership) }
          next = leadership.servicesEnded()
        case .changeRole(let role, let stepDown, let reopenSocket, let reason):
          if stepDown, let shared {
            // What this daemon has not written is not kept; it follows the store from now on.
            await shared.stepDown()
            logger.notice("another daemon leads \(store.location) now: this daemon follows it as a standby")
          }
          // A socket the service manager keeps is served again as it is (still live).
          if reopenSocket && !ListeningSocket.isKept(paths.socket) {
            do {
              try SocketFile.prepare(paths.socket)
            } catch {
              throw DaemonStartError("\(error.description) (this daemon \(reason), and serves next as the \(role))")
            }
          }
          next = leadership.roleChanged()
        case .restart(let reason):
          throw DaemonStartError(reason)
        case .exit:
          await store.close()
          return
        }
      }
    } catch {
      await store.close()
      throw error
    }
  }

  /// What a start found out before it serves: the options in force, the sockets systemd
  /// passed, how it stops.
  struct StartContext: Sendable {
    var options: DaemonOptions
    var level: SharedLogLevel
    var adopted: ListenSockets.Socket?
    var adoptedHTTP: ListenSockets.Socket?
    var stop: DaemonStop?
    var handlingSignals: Bool
    var logger: Logger
    /// The state directory's lock (nil for a PostgreSQL store).
    var stateLock: StateDirectoryLock?

    /// Closes `store` and then releases ``stateLock``; nil when there is no lock.
    func lettingGo(of store: any StateStore) -> (@Sendable () async -> Void)? {
      guard let lock = stateLock else { return nil }
      return {
        await store.close()
        lock.release()
      }
    }
  }

  /// Serves as the store's leader: restores the tree from the store and hosts it until the
  /// daemon is stopped, or until another daemon took the lead of its shared store
  /// (``Leadership`` knows which).
  private func runLeader(
    _ store: any StateStore, _ context: StartContext, leadership: Leadership, prepared: PreparedTree<Root>,
    started: @escaping @Sendable (ModelAnchor<Root>) -> Void
  ) async throws {
    if let shared = store.leadership { leadership.leads(inTerm: shared.term) }
    let (options, logger) = (context.options, context.logger)
    let undoDepth = max(1, options.undoDepth)
    // The revision whose state the store holds as it is; nil when it must save one first.
    // An upgrade's tree, restored while the old process served, goes on from the journal.
    let (recovery, anchor, restoredBase): (StoreRecovery, ModelAnchor<Root>, UInt64?)
    var continued = false
    if let going = await continuing(prepared.take(), from: store, logger: logger) {
      (recovery, anchor, restoredBase) = (going.recovery, going.anchor, going.recovery.record?.revision)
      logRecovered(recovery, keepsHistory: true, undoDepth: undoDepth, logger: logger)
      continued = true
    } else {
      let reading = ContinuousClock.now
      recovery = try await Self.recover(store)
      (anchor, restoredBase) = try restoreAnchor(
        from: recovery, read: ContinuousClock.now - reading, store: store, undoDepth: undoDepth, logger: logger)
    }
    let keepsHistory = restoredBase != nil
    // An upgrade's journal is the old process's, compacted as it ran: the new process's
    // journal compacts it at its first due revision, once it serves, not while every
    // client waits (at 100,000 models a snapshot here took 340 ms of the wait).
    let base =
      if continued, let restoredBase { restoredBase } else {
        try await Self.saveStartSnapshots(anchor: anchor, base: restoredBase, recovery: recovery, store: store, options: options, logger: logger)
      }
    var undoHistory = UndoHistory()
    if keepsHistory {
      undoHistory = try await StartUpkeep.trimUndoHistory(recovery, depth: undoDepth, store: store, logger: logger)
      if !continued {
        try await StartUpkeep.boundJournal(
          revision: base, history: options.history, snapshotEvery: options.snapshotEvery, store: store, logger: logger)
      }
    }
    let host = ModelHost(anchor: anchor, undoHistory: undoHistory, undoDepth: undoDepth, dependencies: dependencies)
    let journalled = await StoreReads.journalledThrough(store)
    let snapshots = await StoreReads.snapshotRevisions(store)
    let parts = DaemonParts(
      name: name, host: host, options: options, commandLine: self.options, logLevel: context.level, paths: paths, adopted: context.adopted,
      adoptedHTTP: context.adoptedHTTP, store: store, snapshotRevisions: snapshots, journalledThrough: max(base, journalled ?? 0), base: base,
      restoredState: base == recovery.record?.revision ? recovery.record?.state : nil, letGoOfStateDirectory: context.lettingGo(of: store), logger: logger)
    try await parts.run(parts.services(listening: { started(anchor) }, leadership: leadership), leadership: leadership)
    // The models went on in the next process: this one exits without deactivating them.
    if context.handlingSignals && parts.handedOver.load(ordering: .relaxed) {
      ProcessEnd.keep(parts)
      logger.info("exiting without deactivating the \(Root._$typeName) tree: its models go on in the next process")
    }
  }
}

extension ArborDaemon {

  /// What the store holds, read on a thread of its own (`StoreCall`); its error explained for the start.
  private static func recover(_ store: any StateStore) async throws -> StoreRecovery {
    do {
      return try await StoreCall.run { try store.recover() }
    } catch let error as StoreError {
      throw DaemonStartError("cannot start from \(error.path): \(error.message)")
    }
  }

  /// Saves the snapshots a start saves before it serves, and returns the revision whose
  /// state the store then holds as it is:
  /// - a fresh or migrated tree (`base` nil) is saved first;
  /// - a restart that replayed more than --snapshot-every revisions saves a snapshot: the
  ///   next start reads it, not the same journal again, however short each life is (crash
  ///   loops would otherwise replay an ever longer journal).
  ///
  /// The store's `throws(StoreError)` calls are caught in typed `do` blocks: caught as
  /// `any Error` in this `async` function, they crashed Swift 6.3.1's optimizer while it
  /// split the coroutine (release builds only).
  private static func saveStartSnapshots(
    anchor: ModelAnchor<Root>, base: UInt64?, recovery: StoreRecovery, store: any StateStore, options: DaemonOptions, logger: Logger
  ) async throws -> UInt64 {
    let file = store.location
    guard let base else {
      let record: SnapshotRecord
      do {
        record = try anchor.snapshotRecord()
      } catch {
        throw DaemonStartError("cannot save the first snapshot to \(file): \(error)")
      }
      do throws(StoreError) {
        try await store.saveSnapshot(record, undoHistory: UndoHistory())
        if store.recordedSchema != Root.schemaHash { try await store.recordSchema(Root.schemaHash) }
      } catch {
        throw DaemonStartError("cannot save the first snapshot to \(file): \(error)")
      }
      return record.revision
    }
    if let record = recovery.record, base == record.revision, recovery.replayed > max(1, options.snapshotEvery) {
      let history = UInt64(max(0, options.history))
      do throws(StoreError) {
        try await store.saveSnapshot(record, keepingFrom: record.revision > history ? record.revision - history : 0)
      } catch {
        throw DaemonStartError("cannot save a snapshot of the restored state to \(file): \(error)")
      }
      logger.info("saved a snapshot of revision \(record.revision): the start replayed \(recovery.replayed) revisions, more than --snapshot-every \(options.snapshotEvery)")
    }
    return base
  }

  /// The tree the store's recovered state holds (a fresh one when it holds none), and the
  /// revision whose state the store holds as it is (nil when a first snapshot must be
  /// saved: a fresh tree, or a migrated one).
  private func restoreAnchor(
    from recovery: StoreRecovery, read: Duration, store: any StateStore, undoDepth: Int, logger: Logger
  ) throws -> (ModelAnchor<Root>, UInt64?) {
    let file = store.location
    let anchor: ModelAnchor<Root>
    var base: UInt64?
    if let record = recovery.record {
      let started = ContinuousClock.now
      do {
        anchor = try Root.andAnchor(restoring: record, dependencies).1
      } catch {
        throw DaemonStartError(
          "cannot start from \(file): its state at revision \(record.revision) cannot be restored (\(error)). Give \(Root._$typeName) a `migrate` that upgrades it, or move the file away to start fresh.")
      }
      if record.schema == Root.schemaHash {
        base = record.revision
      } else {
        logger.notice("migrated the state of revision \(record.revision) from schema \(record.schema) to \(Root.schemaHash)")
      }
      logger.info(
        "restored \(Root._$typeName) at revision \(record.revision) from \(file): the snapshot of revision \(recovery.snapshotRevision ?? 0) and \(recovery.replayed) journalled revisions, in \((ContinuousClock.now - started).logged) after reading them in \(read.logged)")
    } else {
      anchor = makeRoot().andAnchor(dependencies).1
      logger.info("started a fresh \(Root._$typeName); \(file) is new")
    }
    logRecovered(recovery, keepsHistory: base != nil, undoDepth: undoDepth, logger: logger)
    return (anchor, base)
  }

  /// Logs what a start keeps of the store's undo history, and what the backend repaired.
  private func logRecovered(_ recovery: StoreRecovery, keepsHistory: Bool, undoDepth: Int, logger: Logger) {
    // Undo and redo go on where they were: the history kept with the journal, unless the
    // state was migrated (its steps name the old schema's properties).
    if let dropped = recovery.undoHistoryDropped {
      logger.warning("the kept undo history was dropped: \(dropped); undo starts empty")
    } else if keepsHistory, !recovery.undoHistory.isEmpty {
      let kept = recovery.undoHistory.keepingNewest(undoDepth)
      logger.info("kept \(kept.undo.count) undo and \(kept.redo.count) redo steps (--undo-depth \(undoDepth))")
    }
    // What the backend repaired when it opened (SQLite: a torn tail of its write-ahead log).
    for warning in recovery.warnings { logger.warning("\(warning)") }
  }
  /// What `--version` prints: `counterfactd (AppModel), Arbor 0.1.0, protocol 1`.
  static func versionLine(name: String) -> String {
    "\(name) (\(Root._$typeName)), Arbor \(ArborProtocol.release), protocol \(ArborProtocol.version)"
  }

  /// `--http` on a non-loopback address needs `--http-allow-remote`; a token file must
  /// hold a usable token. Checked before anything is opened.
  static func checkHTTPOptions(_ options: DaemonOptions, adoptedHTTP: Bool) throws {
    #if !HTTP
      if options.http != nil || adoptedHTTP {
        throw DaemonStartError(
          "cannot start: --http needs the HTTP listener, which this daemon was built without: enable the package trait \"HTTP\" where the daemon's package depends on Arbor (traits: [\"HTTP\"])")
      }
    #endif
    if options.http == nil && !adoptedHTTP && (options.httpTokenFile != nil || options.httpAllowRemote) {
      throw DaemonStartError("cannot start: --http-token-file and --http-allow-remote need --http ADDRESS:PORT")
    }
    if let address = options.http, !address.isLoopback && !options.httpAllowRemote {
      throw DaemonStartError(
        "cannot start: --http \(address) is not a loopback address, and HTTP carries no peer credentials; pass --http-allow-remote to serve the inspector and /metrics there (see Docs/Operations.md)"
      )
    }
    #if HTTP
      if let tokenFile = options.httpTokenFile {
        do {
          _ = try HTTPAccess.readToken(tokenFile)
        } catch {
          throw DaemonStartError("cannot start: --http-token-file \(error)")
        }
      }
    #endif
  }

  /// Opens the store `--store` names (PostgreSQL), or the state directory's SQLite file
  /// after taking the directory's lock (returned, to be released at the end).
  func openStore(_ options: DaemonOptions, logger: Logger) async throws -> (any StateStore, StateDirectoryLock?) {
    #if PostgreSQL
      if let text = options.store {
        let address: PostgresAddress
        do {
          address = try PostgresAddress(text)
        } catch {
          throw DaemonStartError("cannot start: --store \(error)")
        }
        let holder = "\(name) (pid \(getpid()) on \(ProcessInfo.processInfo.hostName))"
        do {
          let store = try await PostgresStore.open(
            address, root: Root._$typeName, schema: Root.schemaHash, fsync: options.fsync, allowingOtherSchema: true, holder: holder,
            standbyWhenLed: true, logger: logger)
          if store.isLeading { logger.info("leads \(address) in term \(store.term)") }
          return (store, nil)
        } catch {
          throw DaemonStartError("cannot start from \(error.path): \(error.message)")
        }
      }
    #else
      if options.store != nil {
        throw DaemonStartError(
          "cannot start: --store needs PostgreSQL, which this daemon was built without: enable the package trait \"PostgreSQL\" where the daemon's package depends on Arbor (traits: [\"PostgreSQL\"])")
      }
    #endif
    let lock = try await Self.lockStateDirectory(paths.stateDirectory)
    do {
      let store = try Store.open(
        at: paths.storeFile, root: Root._$typeName, schema: Root.schemaHash, fsync: options.fsync, allowingOtherSchema: true)
      return (store, lock)
    } catch {
      lock.release()
      throw DaemonStartError("cannot start from \(error.path): \(error.message)")
    }
  }

  /// Serves as a standby of `store`: the leader's state, followed from its journal, for
  /// reads and watches on this daemon's socket, until the daemon is stopped or the leader
  /// is gone and this daemon took the lead (``Leadership`` knows which; a lead taken before
  /// the leader saved its first snapshot returns before anything is served). The leader's events reach the
  /// standby's watchers when the store relays them (``StateStore/eventRelay``), and intents
  /// are forwarded to the leader when it forwards them (``StateStore/intentForwarding``).
  func runStandby(_ store: any StoreLeadership, _ context: StartContext, leadership: Leadership) async throws {
    let (options, logger) = (context.options, context.logger)
    // The leader's state; before the leader saved its first snapshot there is none to follow.
    var waited = false
    let record: SnapshotRecord
    var lastWarning: ContinuousClock.Instant?
    while true {
      // A stop while the standby waits (there is no service group yet to end).
      if case .stopping = leadership.state { return }
      let recovery: StoreRecovery
      do {
        recovery = try await StoreCall.run { try store.recover() }
      } catch let error as StoreError where error.kind == .unreachable || error.kind == .io {
        // The server cannot be reached now (a network that just came back, a restart of
        // the server): a standby waits for it rather than end.
        if lastWarning.map({ ContinuousClock.now - $0 > .seconds(10) }) ?? true {
          lastWarning = .now
          logger.warning("cannot read \(error.path) to follow it yet: \(error.message); trying again")
        }
        try await Task.sleep(for: .milliseconds(250))
        continue
      } catch let error as StoreError {
        throw DaemonStartError("cannot follow \(error.path): \(error.message)")
      }
      if let found = recovery.record {
        record = found
        break
      }
      if try await store.tryToLead() {
        await leadership.leadTaken(term: store.term)
        return
      }
      if !waited { logger.notice("waiting for the leader of \(store.location) to save its first snapshot") }
      waited = true
      try await Task.sleep(for: .milliseconds(200))
    }
    let replica = ReplicaHost<Root>(record: record)
    let leader = await store.leaderHolder()
    let snapshots = await StoreReads.snapshotRevisions(store)
    let parts = DaemonParts(
      name: name, host: replica, options: options, commandLine: self.options, logLevel: context.level, paths: paths, adopted: context.adopted,
      adoptedHTTP: context.adoptedHTTP, store: store, snapshotRevisions: snapshots, journalledThrough: record.revision, base: record.revision, restoredState: record.state,
      standby: StandbyLeader(
        holder: leader?.holder, term: leader?.term, store: store.location,
        forwards: options.forwardIntents && store.intentForwarding != nil),
      logger: logger)
    logger.info("a standby of \(store.location) at revision \(record.revision): \(leader?.holder ?? "another daemon") leads it")
    var standby: [ServiceGroupConfiguration.ServiceConfiguration] = [
      .init(service: JournalFollower(store: store, replica: replica, hub: parts.hub, journal: parts.journal, logger: logger)),
      .init(service: LeadershipWatch(store: store, leadership: leadership, logger: logger), successTerminationBehavior: .ignore),
    ]
    if let relay = store.eventRelay {
      // Read before the socket is served, so that every watcher is owed the batches after it.
      let eventsAfter = try await EventFollower.startingPoint(relay, logger: logger)
      standby.insert(.init(service: EventFollower(store: relay, after: eventsAfter, hub: parts.hub, logger: logger)), at: 1)
    }
    leadership.standbyServes()
    try await parts.run(parts.services(listening: {}, standby: standby, leadership: leadership), leadership: leadership)
  }

  /// Takes the state directory's lock. A lock that this very process holds is waited for a
  /// moment (2 s): a child process being started elsewhere in the process (a test host
  /// starting a subprocess) holds a copy of the descriptor until it execs.
  static func lockStateDirectory(_ directory: String) async throws -> StateDirectoryLock {
    let deadline = ContinuousClock.now + .seconds(2)
    while true {
      do {
        return try StateDirectoryLock.acquire(directory)
      } catch where error.kind == .held(pid: getpid()) && ContinuousClock.now < deadline {
        try await Task.sleep(for: .milliseconds(10))
      } catch {
        throw DaemonStartError("cannot start: \(error)")
      }
    }
  }
}

/// The store reads a start makes, each on a thread of its own (they wait for the disk); what cannot
/// be read is taken as nothing.
enum StoreReads {
  /// The newest journalled revision; nil when there is none or it cannot be read.
  static func journalledThrough(_ store: any StateStore) async -> UInt64? {
    do {
      return try await StoreCall.run { try store.journalRange()?.upperBound }
    } catch {
      return nil
    }
  }

  /// The revisions with a complete snapshot; none when they cannot be read.
  static func snapshotRevisions(_ store: any StateStore) async -> [UInt64] {
    do {
      return try await StoreCall.run { try store.snapshotRevisions() }
    } catch {
      return []
    }
  }
}

/// Why the daemon could not start.
public struct DaemonStartError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
