import Arbor
import ArborJSON
import ArborRPC
import ArborStore
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
  private let discovery: DiscoveryDocument
  /// Set when the daemon stops: intents and restores are refused from then on.
  let stopping = Atomic<Bool>(false)

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
    self.discovery = DiscoveryDocument(name: name, host: host)
  }

  /// How a request was handled where it arrived.
  enum Handling: Sendable {
    /// Done: the result or error to reply with, or nil when the reply was already queued
    /// (or the request was a notification of a method whose result nobody reads).
    case done(Result<JSONValue, RPCError>?)
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
  func handleNow(_ request: RPCRequest, connection: ConnectionContext, inBatch: Bool) -> Handling {
    guard let method = Method(rawValue: request.method) else {
      return .done(.failure(.methodNotFound(request.method, available: Method.allCases.map(\.rawValue))))
    }
    guard let role = connection.role, role >= method.requiredRole else {
      return .done(.failure(ArborErrors.permissionDenied(method: method.rawValue, role: connection.role, required: method.requiredRole)))
    }
    if method.writes {
      if stopping.load(ordering: .relaxed) { return .done(.failure(ArborErrors.shuttingDown())) }
      // A change that cannot be kept is not made: refused before it runs.
      if let refusal = journal.refusal { return .done(.failure(ArborErrors.writesRefused(refusal))) }
    }
    if inBatch && !method.canBeBatched {
      return .done(.failure(.invalidRequest("\(method.rawValue) cannot be part of a batch; send it on its own line")))
    }
    do throws(RPCError) {
      let params = try Params(request, accepted: method.parameters)
      if method == .intentCall {
        let call = try IntentCall(params)
        if call.wait == .settled { return .later { await self.finish(call) } }
        stats.intentStarted()
        let outcome: IntentOutcome?
        let started = ContinuousClock.now
        defer { reportIfSlow(call, ran: ContinuousClock.now - started) }
        do {
          outcome = try host.callSynchronously(call.intent, on: call.target, parameters: call.arguments)
        } catch {
          stats.intentFinished()
          throw Self.rpcError(error)
        }
        // An `async` intent did not run here: `finish` counts it when it does.
        stats.intentFinished(counted: outcome != nil)
        guard let outcome else { return .later { await self.finish(call) } }
        if outcome.discarded { throw ArborErrors.superseded(intent: call.intent) }
        let reply = outcome.reply
        return repliesWaitForDisk ? .durable(revision: outcome.revision, reply) : .done(.success(reply))
      }
      if let work = try deferred(method, params) { return .later(work) }
      if method == .stateWatch, let since = try params.revision("since"), since < hub.revision,
        case let scope = try params.pointer("path"), since < hub.oldestReplayable || !scope.tokens.isEmpty
      {
        // Older than the hub's history (the daemon restarted since), or a path, whose
        // replay starts from the state at `since`: read back from the journal.
        let outbox = connection.outbox
        return .later { await self.resumeWatch(since: since, scope: scope, outbox: outbox, id: request.id) }
      }
      let result = try run(method, params, request: request, connection: connection)
      if method == .stateRestore, repliesWaitForDisk, case .object(let members)? = result, case .int(let revision)? = members["revision"] {
        return .durable(revision: UInt64(revision), .object(members))
      }
      return .done(result.map { .success($0) })
    } catch {
      return .done(.failure(error))
    }
  }

  /// A synchronous intent runs on the event loop under the tree's lock: one that runs
  /// longer than this delays every other request by as much, and is logged.
  static let slowIntent = Duration.milliseconds(100)

  private func reportIfSlow(_ call: IntentCall, ran: Duration) {
    guard ran >= Self.slowIntent else { return }
    logger.warning(
      "the synchronous intent \(call.intent) on \(call.target.spelling.isEmpty ? "the root" : call.target.spelling) ran for \(ran.formatted(.units(allowed: [.milliseconds]))) on an event loop, holding the tree: every other request waited as long. Move slow work out of the transaction: make it async, or start it with node.task")
  }

  /// Runs an `async` intent to the end of its synchronous part.
  func finish(_ call: IntentCall) async -> Result<JSONValue, RPCError> {
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
      return .success(outcome.reply)
    } catch {
      return .failure(Self.rpcError(error))
    }
  }

  /// Handles a request to its end, suspending for an `async` intent.
  func handle(_ request: RPCRequest, connection: ConnectionContext, inBatch: Bool) async -> Result<JSONValue, RPCError>? {
    switch handleNow(request, connection: connection, inBatch: inBatch) {
    case .done(let outcome): return outcome
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

  /// Every method but `intent.call`; `nil` for the watches, which queue their own reply.
  private func run(_ method: Method, _ params: Params, request: RPCRequest, connection: ConnectionContext) throws(RPCError) -> JSONValue? {
    switch method {
    case .discover:
      return discovery.document
    case .status:
      return status()
    case .stateGet:
      let path = try params.pointer("path")
      let (revision, state) = try readState()
      guard let value = try? path.resolve(in: state) else { throw ArborErrors.pathNotFound(path.description) }
      return ["revision": .int(Int64(revision)), "value": value]
    case .stateSnapshot:
      do {
        return try JSONValue(parsing: host.snapshotData())
      } catch {
        throw RPCError.internalError("the snapshot could not be taken: \(error)")
      }
    case .stateRestore:
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
        return ["revision": .int(Int64(revision))]
      } catch {
        throw ArborErrors.snapshotRejected("\(error)")
      }
    case .historyUndo:
      return try undo(redo: false)
    case .historyRedo:
      return try undo(redo: true)
    case .intentCall, .historyChanges, .stateAt:
      preconditionFailure("\(method.rawValue) is handled by handleNow or deferred")
    case .stateWatch:
      let path = try params.pointer("path")
      let since = try params.revision("since")
      try hub.watchState(outbox: connection.outbox, scope: path, since: since, treeRevision: host.revision) { result in
        Self.replyLine(id: request.id, result: .object(result))
      }
      return nil
    case .eventsWatch:
      let path = try params.pointer("path")
      let types = try params.strings("types").map(Set.init)
      hub.watchEvents(outbox: connection.outbox, scope: path, types: types) { result in
        Self.replyLine(id: request.id, result: .object(result))
      }
      return nil
    case .watchCancel:
      guard let subscription = try params.integer("subscription") else {
        throw params.missing("subscription", expected: "the number a watch replied with")
      }
      guard hub.cancel(subscription: subscription, of: connection.outbox) else {
        throw ArborErrors.subscriptionNotFound(subscription)
      }
      return ["subscription": .int(Int64(subscription)), "cancelled": true]
    }
  }

  private func readState() throws(RPCError) -> (UInt64, JSONValue) {
    do {
      return try host.state()
    } catch {
      throw RPCError.internalError("the state could not be encoded: \(error)")
    }
  }

  private func status() -> JSONValue {
    let snapshot = stats.snapshot()
    return [
      "name": .string(name),
      "version": .string(ArborDaemonVersion.current),
      "protocol": .int(Int64(ArborProtocol.version)),
      "pid": .int(Int64(getpid())),
      "root": .string(host.rootType),
      "uptime": .double((snapshot.uptime * 1000).rounded() / 1000),
      "revision": .int(Int64(host.revision)),
      "clients": .int(Int64(snapshot.clients)),
      "subscriptions": .int(Int64(hub.subscriptionCount)),
      "intentsPerSecond": .double((snapshot.intentsPerSecond * 10).rounded() / 10),
      "intentsInFlight": .int(Int64(snapshot.intentsInFlight)),
      "journal": journal.status,
      "undo": undoStatus,
    ]
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
      return RPCError(
        code: ArborErrorCode.targetNotFound, name: ArborError.targetNotFound.name, message: description,
        details: ["target": .string(target)])
    case .unknownIntent(let intent, let modelType, let available):
      return RPCError(
        code: ArborErrorCode.intentNotFound, name: ArborError.intentNotFound.name, message: description,
        details: ["intent": .string(intent), "modelType": .string(modelType), "available": .array(available.map(JSONValue.string))])
    case .parametersNotAnObject(let intent, _):
      return RPCError(
        code: ArborErrorCode.invalidParameter, name: ArborError.invalidParameter.name, message: description,
        details: ["intent": .string(intent)])
    case .unknownParameter(let intent, let parameter, let accepted):
      return RPCError(
        code: ArborErrorCode.invalidParameter, name: ArborError.invalidParameter.name, message: description,
        details: ["intent": .string(intent), "parameter": .string(parameter), "accepted": .array(accepted.map(JSONValue.string))])
    case .missingParameter(let intent, let parameter):
      return RPCError(
        code: ArborErrorCode.invalidParameter, name: ArborError.invalidParameter.name, message: description,
        details: ["intent": .string(intent), "parameter": .string(parameter)])
    case .invalidParameter(let intent, let parameter, let reason):
      return RPCError(
        code: ArborErrorCode.invalidParameter, name: ArborError.invalidParameter.name, message: description,
        details: ["intent": .string(intent), "parameter": .string(parameter), "reason": .string(reason)])
    case .failed(let intent, let errorType, let message):
      return RPCError(
        code: ArborErrorCode.intentFailed, name: ArborError.intentFailed.name, message: description,
        details: ["intent": .string(intent), "errorType": .string(errorType), "error": .string(message)])
    case .resultNotEncodable(let intent, let reason):
      return RPCError(
        code: ArborErrorCode.intentFailed, name: ArborError.intentFailed.name, message: description,
        details: ["intent": .string(intent), "reason": .string(reason)])
    }
  }
}
