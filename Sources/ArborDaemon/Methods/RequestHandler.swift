import ArborLocking
import Arbor
import ArborJSON
import ArborRPC
import ArborStorage
import Foundation
import Logging
import Synchronization

/// Runs one request: checks the role, reads the parameters, and calls into the tree or the
/// watch hub. Returns the result or error to reply with, or nil when the reply was already
/// queued (watches queue their own, ahead of their notifications).
final class RequestHandler: Sendable {
  let host: any TreeHost
  let hub: WatchHub
  let journal: DaemonJournal
  let stats: DaemonStats
  let name: String
  let logger: Logger
  let onRestore: @Sendable () -> Void
  /// `rpc.discover`'s document, built at its first use: inferring every schema takes tens
  /// of milliseconds (conformance look-ups), which a start would otherwise spend before it
  /// serves.
  private let discovery = LockedState<JSONValue?>(nil)
  /// Set when the daemon stops: intents and restores are refused from then on.
  let stopping = Atomic<Bool>(false)
  /// The HTTP listener's address once it listens (`daemon.status`'s `http`).
  let httpURL = LockedState<String?>(nil)

  init(
    host: any TreeHost, hub: WatchHub, journal: DaemonJournal, stats: DaemonStats, name: String, logger: Logger,
    onRestore: @escaping @Sendable () -> Void
  ) {
    self.host = host
    self.hub = hub
    self.journal = journal
    self.stats = stats
    self.name = name
    self.logger = logger
    self.onRestore = onRestore
  }

  /// The discovery document, built once.
  private var discoveryDocument: JSONValue {
    discovery.withLock { document in
      if let document { return document }
      let built = DiscoveryDocument(name: name, host: host).document
      document = built
      return built
    }
  }

  /// How a request was handled where it arrived.
  enum Handling: Sendable {
    /// Done: the result or error to reply with, or nil when the reply was already queued
    /// (or the request was a notification of a method whose result nobody reads).
    case done(Result<JSONValue, RPCError>?)
    /// Done, replying an intent's result: written straight into the reply line, without
    /// building its object (the reply of every synchronous intent).
    case intent(IntentCall.Result)
    /// Done, and the reply waits until `revision` is durable (`--fsync always`): the
    /// connection asks the journal writer to call it back.
    case durable(revision: UInt64, JSONValue)
    /// Work that must suspend (an `async` intent, a read of the store): the connection runs
    /// it in a task.
    case later(@Sendable () async -> Result<JSONValue, RPCError>?)
  }

  /// Replies wait for the journal under `--fsync always`.
  var repliesWaitForDisk: Bool { journal.store.fsync == .always }

  /// Handles a request without suspending. Everything but an `async` intent is done here,
  /// on the connection's event loop; so is a synchronous intent, which runs to its end
  /// under the tree's lock (see Docs/Architecture.md, "Where requests run").
  ///
  /// Every method is routed by the one `switch` below: its parameters are read into its
  /// `Params` type (`ArborRPC`), and its reply is built from its `Result` type.
  func handleNow(_ request: RPCRequest, connection: ConnectionContext, inBatch: Bool) -> Handling {
    let started = ContinuousClock.now
    let method = Method.named(request.method)
    let handling = route(request, method: method, connection: connection, inBatch: inBatch)
    let metrics = stats.metrics
    switch handling {
    case .done(let outcome):
      metrics.requestHandled(method, failed: outcome?.isFailure ?? false, took: ContinuousClock.now - started)
      return handling
    case .durable, .intent:
      metrics.requestHandled(method, failed: false, took: ContinuousClock.now - started)
      return handling
    case .later(let work):
      return .later {
        let outcome = await work()
        metrics.requestHandled(method, failed: outcome?.isFailure ?? false, took: ContinuousClock.now - started)
        return outcome
      }
    }
  }

  /// Routes a request to its method (nil: no method has its name).
  private func route(_ request: RPCRequest, method: Method?, connection: ConnectionContext, inBatch: Bool) -> Handling {
    guard let method else {
      return .done(.failure(.methodNotFound(request.method, available: Method.allCases.map(\.rawValue))))
    }
    guard let role = connection.role, role >= method.requiredRole else {
      return .done(.failure(ArborErrors.permissionDenied(method: method.rawValue, role: connection.role, required: method.requiredRole)))
    }
    if method.writes {
      if stopping.load(ordering: .relaxed) { return .done(.failure(ArborErrors.shuttingDown())) }
      // A standby writes nothing: the leader does. An intent goes to it when forwarding
      // is on (once its parameters are known to be well formed).
      if let standby = journal.standby {
        if method == .intentCall && standby.forwards && !inBatch {
          do throws(RPCError) {
            _ = try IntentCall.Params(RequestParams(request, accepted: method.parameters))
          } catch {
            return .done(.failure(error))
          }
          return .later { await self.forward(request) }
        }
        return .done(.failure(.notLeader(leader: standby.holder, term: standby.term, store: standby.store)))
      }
      // A change that cannot be kept is not made: refused before it runs.
      if let refusal = journal.refusal { return .done(.failure(ArborErrors.writesRefused(refusal))) }
    }
    if inBatch && !method.canBeBatched {
      return .done(.failure(.invalidRequest("\(method.rawValue) cannot be part of a batch; send it on its own line")))
    }
    do throws(RPCError) {
      let params = try RequestParams(request, accepted: method.parameters)
      switch method {
      case .discover:
        return .done(.success(discoveryDocument))
      case .status:
        return try .reply(status())
      case .metrics:
        return try .reply(DaemonMetrics.Result(format: DaemonMetrics.format, text: String(decoding: metricsText(), as: UTF8.self)))
      case .stateGet:
        return try stateGet(StateGet.Params(params), params)
      case .stateSnapshot:
        return stateSnapshot()
      case .stateRestore:
        let result = try restore(params)
        return try repliesWaitForDisk ? .durable(revision: result.revision, Self.encode(result)) : .reply(result)
      case .intentCall:
        return try callIntent(IntentInvocation(IntentCall.Params(params)))
      case .stateWatch:
        return try watchState(StateWatchMethod.Params(params), params, request: request, connection: connection)
      case .eventsWatch:
        let watch = try EventsWatch.Params(params)
        let scope = try params.pointer(watch.path)
        hub.watchEvents(outbox: connection.outbox, scope: scope, types: watch.types.map(Set.init)) { result in
          Self.replyLine(id: request.id, result: result)
        }
        return .done(nil)
      case .watchCancel:
        let cancel = try WatchCancel.Params(params)
        guard hub.cancel(subscription: cancel.subscription, of: connection.outbox) else {
          throw ArborErrors.subscriptionNotFound(cancel.subscription)
        }
        return try .reply(WatchCancel.Result(subscription: cancel.subscription))
      case .historyChanges:
        let page = try HistoryChanges.Params(params)
        return .later { await self.historyChanges(page) }
      case .stateAt:
        let at = try StateAt.Params(params)
        let path = try params.pointer(at.path)
        let current = host.revision
        guard at.revision <= current else { throw .revisionAhead(parameter: "revision", revision: at.revision, current: current) }
        return .later { await self.state(at: at.revision, path: path) }
      case .upgrade:
        let upgrade = try DaemonUpgradeMethod.Params(params)
        return .later { [logger] in
          switch await DaemonUpgrade.begin(logger: logger, binary: upgrade.binary) {
          case .success(let started):
            // The stop waits for this reply: the hand-over's pause answers what was read.
            DaemonUpgrade.stopForHandOver()
            return Self.encoded(DaemonUpgradeMethod.Result(pid: started.pid, binary: started.binary))
          case .failure(let refusal):
            return .failure(.upgradeFailed(refusal.description))
          }
        }
      case .historyUndo, .historyRedo:
        // A step is a revision like an intent's: under `--fsync always` its reply waits for the disk.
        let result = try undo(redo: method == .historyRedo)
        return try repliesWaitForDisk ? .durable(revision: result.revision, Self.encode(result)) : .reply(result)
      }
    } catch {
      return .done(.failure(error))
    }
  }

  /// `intent.call`: a synchronous intent runs here, under the tree's lock; an `async` one,
  /// or any call that waits until settled, runs later in a task.
  private func callIntent(_ call: IntentInvocation) throws(RPCError) -> Handling {
    if call.wait == .settled { return .later { await self.finish(call) } }
    stats.intentStarted()
    let outcome: IntentOutcome?
    let started = ContinuousClock.now
    defer { reportIfSlow(call, ran: ContinuousClock.now - started) }
    do {
      outcome = try host.callSynchronously(call.intent, on: call.target, parameters: call.arguments)
    } catch {
      stats.intentFinished()
      throw withTargetHint(Self.rpcError(error), call.target)
    }
    // An `async` intent did not run here: `finish` counts it when it does.
    stats.intentFinished(counted: outcome != nil)
    guard let outcome else { return .later { await self.finish(call) } }
    if outcome.discarded { throw ArborErrors.superseded(intent: call.intent) }
    guard repliesWaitForDisk else { return .intent(outcome.rpcResult) }
    return .durable(revision: outcome.revision, outcome.rpcResult.jsonValue)
  }

  /// `state.watch`: queues its own reply, ahead of its notifications.
  private func watchState(
    _ watch: StateWatchMethod.Params, _ params: RequestParams, request: RPCRequest, connection: ConnectionContext
  ) throws(RPCError) -> Handling {
    let scope = try params.pointer(watch.path)
    if let since = watch.since, since < hub.revision, since < hub.oldestReplayable || !scope.tokens.isEmpty {
      // Older than the hub's history (the daemon restarted since), or a path, whose
      // replay starts from the state at `since`: read back from the journal.
      let outbox = connection.outbox
      return .later { await self.resumeWatch(since: since, scope: scope, outbox: outbox, id: request.id) }
    }
    try hub.watchState(outbox: connection.outbox, scope: scope, since: watch.since, treeRevision: host.revision) { result in
      Self.replyLine(id: request.id, result: result)
    }
    return .done(nil)
  }

  /// A synchronous intent runs on the event loop under the tree's lock: one that runs
  /// longer than this delays every other request by as much, and is logged.
  static let slowIntent = Duration.milliseconds(100)

  private func reportIfSlow(_ call: IntentInvocation, ran: Duration) {
    guard ran >= Self.slowIntent else { return }
    logger.warning(
      "the synchronous intent \(call.intent) on \(call.target.spelling.isEmpty ? "the root" : call.target.spelling) ran for \(ran.formatted(.units(allowed: [.milliseconds]))) on an event loop, holding the tree: every other request waited as long. Move slow work out of the transaction: make it async, or start it with node.task")
  }

  /// Runs an `async` intent to the end of its synchronous part.
  func finish(_ call: IntentInvocation) async -> Result<JSONValue, RPCError> {
    stats.intentStarted()
    defer { stats.intentFinished() }
    do {
      let outcome = try await host.call(call.intent, on: call.target, parameters: call.arguments, wait: call.wait)
      if outcome.discarded { return .failure(ArborErrors.superseded(intent: call.intent)) }
      if repliesWaitForDisk {
        do {
          try await journal.writer.durable(through: outcome.revision)
        } catch {
          return .failure(ArborErrors.notDurable(revision: outcome.revision, error))
        }
      }
      return .success(outcome.rpcResult.jsonValue)
    } catch {
      return .failure(withTargetHint(Self.rpcError(error), call.target))
    }
  }

  /// A target that names no model, with what the state holds there instead
  /// (``PathHint``): "no model at '/counter/0': did you mean '/counters/0'?". An intent
  /// the target's type does not have, with the model types that have one of that name.
  private func withTargetHint(_ error: RPCError, _ target: IntentTarget) -> RPCError {
    var hinted = error
    if error.is(.intentNotFound) {
      addOwners(to: &hinted)
    } else if error.is(.targetNotFound) {
      addPlace(to: &hinted, target: target)
    }
    return hinted
  }

  /// "; CounterModel has one of that name, at /counters/0/counter", and `typesWithIntent`
  /// and `pathsWithIntent` in the error's data: read from the discovery document, which
  /// already lists each type's intents and holds the state's schema.
  private func addOwners(to error: inout RPCError) {
    guard case .object(var members)? = error.data, case .string(let intent)? = members["intent"] else { return }
    let components = discoveryDocument["components"]
    let intents = components?["x-intents"]?.objectValue ?? [:]
    let owners = intents.keys.filter { intents[$0]?[intent] != nil }.sorted()
    guard !owners.isEmpty else { return }
    error.message += "; \(owners.joined(separator: ", ")) \(owners.count == 1 ? "has" : "have") one of that name"
    members["typesWithIntent"] = .array(owners.map(JSONValue.string))
    // And where such models are now, a few of them.
    if let schema = components?["schemas"]?["State"], let state = stateForHints {
      let paths = ModelPaths.find(types: Set(owners), in: state, schema: schema, limit: 4)
      if !paths.isEmpty {
        error.message += ", at " + paths.prefix(3).joined(separator: ", ") + (paths.count > 3 ? ", …" : "")
        members["pathsWithIntent"] = .array(paths.prefix(3).map(JSONValue.string))
      }
    }
    error.data = .object(members)
  }

  /// The state an error's hint reads: the watch hub's copy, so that a mistaken call does
  /// not encode the whole tree under its lock; the tree's own while the hub holds none.
  private var stateForHints: JSONValue? {
    if let current = hub.state(atLeast: 0) { return current.document }
    return try? host.state().1
  }

  /// What the state holds at a target path that names no model.
  private func addPlace(to error: inout RPCError, target: IntentTarget) {
    guard case .path(let text) = target, let pointer = try? JSONPointer(text), let state = stateForHints else { return }
    if let value = try? pointer.resolve(in: state) {
      error.message += ": it holds \(value.typeName == "object" ? "an object" : "a " + value.typeName) that is not a model"
    } else {
      error.addHint(from: pointer, in: state, unlessCut: ArborErrors.cut(text) != nil)
    }
  }

  /// Handles a request to its end, suspending for an `async` intent.
  func handle(_ request: RPCRequest, connection: ConnectionContext, inBatch: Bool) async -> Result<JSONValue, RPCError>? {
    switch handleNow(request, connection: connection, inBatch: inBatch) {
    case .done(let outcome): return outcome
    case .intent(let result): return .success(result.jsonValue)
    case .durable(let revision, let reply): return await durable(revision, reply)
    case .later(let work): return await work()
    }
  }

  /// `reply` once `revision` is durable; an error if the journal could not write it.
  func durable(_ revision: UInt64, _ reply: JSONValue) async -> Result<JSONValue, RPCError> {
    do {
      try await journal.writer.durable(through: revision)
      return .success(reply)
    } catch {
      return .failure(ArborErrors.notDurable(revision: revision, error))
    }
  }

  private static func rpcError(_ error: any Error) -> RPCError {
    if let error = error as? IntentError { return error.rpcError }
    if let error = error as? RPCError { return error }
    return RPCError.internalError("\(error)")
  }

  /// `state.get`: read from the watch hub's copy of the state (``fromHub(_:otherwise:)``),
  /// so that no value is encoded under the tree's lock or on the event loop, however
  /// large; the connection encodes a large reply off the loop (``RequestStage``).
  private func stateGet(_ get: StateGet.Params, _ params: RequestParams) throws(RPCError) -> Handling {
    let path = try params.pointer(get.path)
    return fromHub { Self.encoded(Self.stateGetResult(at: path, in: $0)) } otherwise: { Self.encoded(self.stateGetFromTree(at: path)) }
  }

  /// `state.snapshot`: the record of the watch hub's copy of the state, as the journal's
  /// snapshots are (``DaemonJournal/compact()``); not the tree encoded under its lock.
  private func stateSnapshot() -> Handling {
    fromHub { current in
      let record = SnapshotRecord(root: self.host.rootType, schema: self.host.schemaHash, revision: current.revision, createdAt: Date(), state: current.document)
      return Self.encoded(record)
    } otherwise: {
      Swift.Result { () throws(RPCError) in try Self.encode(self.snapshot()) }
    }
  }

  /// Answers from the watch hub's copy of the state once it has reached the revision the
  /// tree has now: at once, but for a commit whose change set is still reaching the hub
  /// (under `--fsync always` the hub holds only what is on disk), then in a task that
  /// waits for it. So a reply reflects every revision committed before the request came.
  /// Should the hub not catch up within ``hubWait`` (its copy is being rebuilt after a
  /// restore), `otherwise` reads the tree.
  private func fromHub(
    _ read: @escaping @Sendable ((revision: UInt64, document: JSONValue)) -> Swift.Result<JSONValue, RPCError>,
    otherwise: @escaping @Sendable () -> Swift.Result<JSONValue, RPCError>
  ) -> Handling {
    let wanted = host.revision
    if let current = hub.state(atLeast: wanted) { return .done(read(current)) }
    return .later {
      let deadline = ContinuousClock.now + Self.hubWait
      while ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(1))
        if let current = self.hub.state(atLeast: wanted) { return read(current) }
      }
      return otherwise()
    }
  }

  /// How long a read waits for the watch hub to reach the tree's revision.
  static let hubWait = Duration.seconds(1)

  /// The value at `path` in the hub's copy of the state.
  private static func stateGetResult(
    at path: JSONPointer, in current: (revision: UInt64, document: JSONValue)
  ) -> Swift.Result<StateGet.Result, RPCError> {
    do {
      return .success(StateGet.Result(revision: current.revision, value: try path.resolve(in: current.document)))
    } catch {
      return .failure(ArborErrors.pathNotFound(path, in: current.document))
    }
  }

  /// The value at `path`, encoded from the tree: only the deepest model on the path.
  private func stateGetFromTree(at path: JSONPointer) -> Swift.Result<StateGet.Result, RPCError> {
    let read: (revision: UInt64, value: JSONValue?)
    do {
      read = try host.state(at: path)
    } catch {
      return .failure(RPCError.internalError("the state could not be encoded: \(error)"))
    }
    guard let value = read.value else {
      do throws(RPCError) {
        let (_, state) = try readState()
        return .failure(ArborErrors.pathNotFound(path, in: state))
      } catch {
        return .failure(error)
      }
    }
    return .success(StateGet.Result(revision: read.revision, value: value))
  }

  private func snapshot() throws(RPCError) -> StateSnapshot.Record {
    let record: JSONValue
    do {
      record = try JSONValue(parsing: host.snapshotData())
    } catch {
      throw RPCError.internalError("the snapshot could not be taken: \(error)")
    }
    // The record's own JSON, taken apart without a copy of the state.
    guard case .object(let members) = record, case .int(let format)? = members["format"], case .string(let root)? = members["root"],
      case .string(let schema)? = members["schema"], case .int(let revision)? = members["revision"],
      case .string(let createdAt)? = members["createdAt"], let state = members["state"]
    else { throw RPCError.internalError("the snapshot record has an unexpected shape") }
    return StateSnapshot.Record(format: Int(format), root: root, schema: schema, revision: UInt64(revision), createdAt: createdAt, state: state)
  }

  /// `state.restore`: its `record` is decoded into `Arbor`'s `SnapshotRecord`, the Swift
  /// form of `StateRestore.Params.record`, whose refusals say what is wrong and where.
  private func restore(_ params: RequestParams) throws(RPCError) -> StateRestore.Result {
    guard let raw = params.members["record"] else { throw params.missing("record", expected: "a snapshot record object") }
    let record: SnapshotRecord
    do {
      record = try JSONValueDecoder().decode(SnapshotRecord.self, from: raw)
    } catch {
      throw ArborErrors.snapshotRejected("it is not a snapshot record: \(error)")
    }
    do {
      let revision = try host.restore(record)
      logger.notice("state restored from a record of revision \(record.revision); now at revision \(revision)")
      onRestore()
      return StateRestore.Result(revision: revision)
    } catch {
      throw ArborErrors.snapshotRejected("\(error)")
    }
  }

  private func readState() throws(RPCError) -> (UInt64, JSONValue) {
    do {
      return try host.state()
    } catch {
      throw RPCError.internalError("the state could not be encoded: \(error)")
    }
  }

  private func status() throws(RPCError) -> DaemonStatus.Result {
    let snapshot = stats.snapshot()
    let journalStatus = journal.status
    return DaemonStatus.Result(
      name: name, version: ArborDaemonVersion.current, protocol: ArborProtocol.version, pid: Int(getpid()), root: host.rootType,
      uptime: (snapshot.uptime * 1000).rounded() / 1000, revision: host.revision, clients: snapshot.clients,
      subscriptions: hub.subscriptionCount, intentsPerSecond: (snapshot.intentsPerSecond * 10).rounded() / 10,
      intentsInFlight: snapshot.intentsInFlight, journal: journalStatus, undo: undoStatus, http: httpURL.withLock { $0 },
      generation: HandOverIntake.generation,
      startedAt: Date(timeIntervalSinceNow: -snapshot.uptime).formatted(Self.timeFormat))
  }

  /// The text of `/metrics` and `daemon.metrics`, with the figures that are a state (the
  /// revision, connections, watches, the journal) read now.
  func metricsText() -> [UInt8] {
    let snapshot = stats.snapshot()
    let progress = journal.writer.progress
    return stats.metrics.exposition(
      current: ServiceMetrics.Current(
        revision: host.revision, connections: snapshot.clients, watches: hub.subscriptionCount,
        resyncs: hub.resyncsSent.load(ordering: .relaxed), watchesClosed: hub.watchesClosed.load(ordering: .relaxed),
        intentsInFlight: snapshot.intentsInFlight, intentsPerSecond: snapshot.intentsPerSecond, uptime: snapshot.uptime,
        journalLag: journal.writer.lag, journalWrittenRevision: progress.revision, journalBytes: journal.store.storedBytes,
        writesRefused: journal.refusal != nil))
  }

  /// A result as the JSON of a reply.
  static func encode<Result: Encodable>(_ result: Result) throws(RPCError) -> JSONValue {
    // The JSON values in a result (the state, an intent's result, a request's own values)
    // were encoded or parsed already, which let no non-finite number in: a whole tree is
    // not walked again, on the event loop, to look for one.
    do {
      return try JSONValueEncoder.trustingJSONValues.encode(result)
    } catch {
      throw RPCError.internalError("the reply could not be encoded: \(error)")
    }
  }

  /// A result as the outcome of a request.
  static func encoded<Result: Encodable>(_ result: Result) -> Swift.Result<JSONValue, RPCError> {
    Swift.Result { () throws(RPCError) in try encode(result) }
  }

  /// A result or error as the outcome of a request.
  static func encoded<Result: Encodable>(_ result: Swift.Result<Result, RPCError>) -> Swift.Result<JSONValue, RPCError> {
    result.flatMap { encoded($0) }
  }

  static func replyLine(id: RPCID?, result: JSONValue) -> [UInt8] {
    guard let id else { return [] }
    return RPCResponse(id: id, result: result).jsonLine
  }
}

extension IntentError {
  /// The error as the client sees it, with its stable name and the details to fix it.
  var rpcError: RPCError {
    switch self {
    case .unknownTarget(let target):
      return .targetNotFound(target, message: description)
    case .unknownIntent(let intent, let modelType, let available):
      var message = description
      if let meant = NameSuggestion.closest(to: intent, among: available) {
        message = "\(modelType) has no intent '\(intent)': did you mean '\(meant)'? (it has \(available.joined(separator: ", ")))"
      }
      return .intentNotFound(intent, modelType: modelType, available: available, message: message)
    case .parametersNotAnObject(let intent, _):
      return .invalidIntentParameter(intent: intent, message: description)
    case .unknownParameter(let intent, let parameter, let accepted):
      return .invalidIntentParameter(intent: intent, parameter: parameter, accepted: accepted, message: description)
    case .missingParameter(let intent, let parameter):
      return .invalidIntentParameter(intent: intent, parameter: parameter, message: description)
    case .invalidParameter(let intent, let parameter, let reason):
      return .invalidIntentParameter(intent: intent, parameter: parameter, reason: reason, message: description)
    case .failed(let intent, let errorType, let message):
      return .intentFailed(intent: intent, errorType: errorType, error: message, message: description)
    case .resultNotEncodable(let intent, let reason):
      return .intentFailed(intent: intent, reason: reason, message: description)
    }
  }
}

extension IntentOutcome {
  /// The reply of `intent.call`: `firstRevision` and `commits` when the intent committed
  /// more than one revision.
  var rpcResult: IntentCall.Result {
    guard commits > 1, let firstRevision else { return IntentCall.Result(revision: revision, result: result) }
    return IntentCall.Result(revision: revision, result: result, firstRevision: firstRevision, commits: commits)
  }
}

extension RequestHandler.Handling {
  /// Done, replying `result`.
  static func reply<Result: Encodable>(_ result: Result) throws(RPCError) -> Self {
    .done(.success(try RequestHandler.encode(result)))
  }
}

extension Result {
  fileprivate var isFailure: Bool {
    if case .failure = self { return true }
    return false
  }
}
