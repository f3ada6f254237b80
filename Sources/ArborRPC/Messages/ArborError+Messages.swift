import ArborJSON

// The message and details of each of Arbor's errors, written once: the daemon throws
// these, and clients can read what each one carries here.

extension RPCError {
  // MARK: Invalid params (-32602) of the methods' own parameters

  /// A method's parameters given by position, or as something other than an object.
  ///
  /// ```swift
  /// RPCError.paramsNotAnObject(method: "state.get", found: "array", accepted: ["path"])
  /// ```
  public static func paramsNotAnObject(method: String, found: String, accepted: [String]) -> RPCError {
    .invalidParams(
      "\(method) takes its parameters by name, as an object, not \(found)",
      data: ["name": .string(ArborError.invalidParameter.name), "accepted": .array(accepted.map(JSONValue.string))])
  }

  /// A parameter the method does not take.
  ///
  /// ```swift
  /// RPCError.unknownParameter(method: "state.get", parameter: "pth", accepted: ["path"])
  /// ```
  public static func unknownParameter(method: String, parameter: String, accepted: [String]) -> RPCError {
    let list = accepted.isEmpty ? "it takes none" : "it takes " + accepted.joined(separator: ", ")
    return .invalidParams(
      "\(method) has no parameter '\(parameter)' (\(list))",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter), "accepted": .array(accepted.map(JSONValue.string))])
  }

  /// A parameter of the wrong type (`found` is the JSON type's name).
  ///
  /// ```swift
  /// RPCError.wrongParameterType(method: "state.get", parameter: "path", expected: "a string", found: "number")
  /// ```
  public static func wrongParameterType(method: String, parameter: String, expected: String, found: String) -> RPCError {
    .invalidParams(
      "parameter '\(parameter)' of \(method) must be \(expected), not \(found)",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter), "expected": .string(expected)])
  }

  /// A required parameter that is missing.
  ///
  /// ```swift
  /// RPCError.missingParameter(method: "state.at", parameter: "revision", expected: "a revision (an integer ≥ 0)")
  /// ```
  public static func missingParameter(method: String, parameter: String, expected: String) -> RPCError {
    .invalidParams(
      "\(method) needs the parameter '\(parameter)' (\(expected))",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter), "expected": .string(expected)])
  }

  /// A parameter that is not a JSON Pointer.
  ///
  /// ```swift
  /// RPCError.notAPointer(method: "state.get", parameter: "path", reason: "a pointer starts with '/'")
  /// ```
  public static func notAPointer(method: String, parameter: String, reason: String) -> RPCError {
    .invalidParams(
      "parameter '\(parameter)' of \(method) is not a JSON Pointer: \(reason)",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter), "expected": "a JSON Pointer such as \"/counters/0\""])
  }

  /// A parameter outside its range (`history.changes`' `limit`).
  ///
  /// ```swift
  /// RPCError.outOfRange(method: "history.changes", parameter: "limit", value: 0, range: 1...10_000)
  /// ```
  public static func outOfRange(method: String, parameter: String, value: Int, range: ClosedRange<Int>) -> RPCError {
    .invalidParams(
      "parameter '\(parameter)' of \(method) must be between \(range.lowerBound) and \(range.upperBound); it is \(value)",
      data: [
        "name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter),
        "expected": .string("an integer from \(range.lowerBound) to \(range.upperBound)"),
      ])
  }

  /// A revision (`since`, `revision`) the tree has not reached.
  ///
  /// ```swift
  /// RPCError.revisionAhead(parameter: "since", revision: 12, current: 9)
  /// ```
  public static func revisionAhead(parameter: String, revision: UInt64, current: UInt64) -> RPCError {
    .invalidParams(
      "'\(parameter)' is \(revision) but the tree is at revision \(current)",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": .string(parameter), "current": .int(Int64(current))])
  }

  /// `wait` of `intent.call` that is neither `committed` nor `settled`.
  ///
  /// ```swift
  /// RPCError.unknownWait("soon")
  /// ```
  public static func unknownWait(_ text: String) -> RPCError {
    .invalidParams(
      "parameter 'wait' of intent.call must be \"committed\" or \"settled\", not \"\(text)\"",
      data: ["name": .string(ArborError.invalidParameter.name), "parameter": "wait", "expected": "\"committed\" or \"settled\""])
  }

  // MARK: Arbor's errors

  /// ``ArborError/pathNotFound``; `cut` when `path` was shortened before it is echoed.
  ///
  /// ```swift
  /// RPCError.pathNotFound("/nope")   // nothing in the state at '/nope'
  /// ```
  public static func pathNotFound(_ path: String, cut: Bool = false) -> RPCError {
    var details: [String: JSONValue] = ["path": .string(path)]
    if cut { details["cut"] = true }
    return RPCError(.pathNotFound, message: "nothing in the state at '\(path)'", details: details)
  }

  /// ``ArborError/permissionDenied``: `role` is nil when the daemon does not know the user.
  ///
  /// ```swift
  /// RPCError.permissionDenied(method: "state.restore", required: "admin", role: "reader")
  /// ```
  public static func permissionDenied(method: String, required: String, role: String?) -> RPCError {
    let who = role.map { "the \($0) role" } ?? "no role (the daemon does not know this user)"
    return RPCError(
      .permissionDenied, message: "\(method) needs the \(required) role; this connection has \(who)",
      details: ["method": .string(method), "required": .string(required), "role": role.map(JSONValue.string) ?? .null])
  }

  /// ``ArborError/subscriptionNotFound``.
  ///
  /// ```swift
  /// RPCError.subscriptionNotFound(7)   // this connection has no watch 7
  /// ```
  public static func subscriptionNotFound(_ subscription: Int) -> RPCError {
    RPCError(.subscriptionNotFound, message: "this connection has no watch \(subscription)", details: ["subscription": .int(Int64(subscription))])
  }

  /// ``ArborError/lineTooLong``.
  ///
  /// ```swift
  /// RPCError.lineTooLong(limit: 16 << 20)
  /// ```
  public static func lineTooLong(limit: Int) -> RPCError {
    RPCError(
      .lineTooLong, message: "a request line is longer than the limit of \(limit) bytes; the connection is closed",
      details: ["limit": .int(Int64(limit))])
  }

  /// ``ArborError/shuttingDown``.
  ///
  /// ```swift
  /// RPCError.shuttingDown()   // the daemon is stopping
  /// ```
  public static func shuttingDown() -> RPCError {
    RPCError(.shuttingDown, message: "the daemon is stopping")
  }

  /// ``ArborError/upgradeFailed``: `reason` says what happened; the daemon serves on.
  ///
  /// ```swift
  /// RPCError.upgradeFailed("the new process (pid 4242) ended before it was ready (exit status 1)")
  /// ```
  public static func upgradeFailed(_ reason: String) -> RPCError {
    RPCError(.upgradeFailed, message: "the upgrade did not happen: \(reason); this daemon goes on serving", details: ["reason": .string(reason)])
  }

  /// ``ArborError/revisionCompacted``.
  ///
  /// ```swift
  /// RPCError.revisionCompacted(since: 3, oldest: 100, current: 180)
  /// ```
  public static func revisionCompacted(since: UInt64, oldest: UInt64, current: UInt64) -> RPCError {
    RPCError(
      .revisionCompacted,
      message: "revision \(since) is older than the history kept (from \(oldest)); read the state again with state.get, or ask from a newer revision",
      details: ["since": .int(Int64(since)), "oldest": .int(Int64(oldest)), "current": .int(Int64(current))])
  }

  /// ``ArborError/revisionCompacted`` of `state.watch`: `since` is older than the history
  /// the daemon keeps, and the watch can start again without it.
  ///
  /// ```swift
  /// RPCError.watchRevisionCompacted(since: 3, oldest: 100, current: 180)
  /// ```
  public static func watchRevisionCompacted(since: UInt64, oldest: UInt64, current: UInt64) -> RPCError {
    RPCError(
      .revisionCompacted,
      message: "revision \(since) is older than the history kept (from \(oldest)); read the state again with state.get or watch without 'since'",
      details: ["since": .int(Int64(since)), "oldest": .int(Int64(oldest)), "current": .int(Int64(current))])
  }

  /// ``ArborError/notDurable``: `error` is why the journal could not write.
  ///
  /// ```swift
  /// RPCError.notDurable(revision: 12, error: "disk full")
  /// ```
  public static func notDurable(revision: UInt64, error: String) -> RPCError {
    RPCError(
      .notDurable,
      message: "revision \(revision) was committed in memory but could not be written to the journal: \(error). The daemon now refuses writes and retries writing it every second; it is kept once the disk takes it, and lost if the daemon stops before (daemon.status says which)",
      details: ["revision": .int(Int64(revision)), "error": .string(error)])
  }

  /// ``ArborError/superseded``: an intent whose writes went to a tree that `state.restore`
  /// replaced while it ran.
  ///
  /// ```swift
  /// RPCError.superseded(intent: "incrementTapped")
  /// ```
  public static func superseded(intent: String) -> RPCError {
    RPCError(
      .superseded,
      message: "the state was restored while \(intent) ran: its changes were discarded (the restored state does not hold them); call it again if it still applies",
      details: ["intent": .string(intent)])
  }

  /// ``ArborError/writesRefused``: a write refused before it ran, because the journal
  /// cannot write. `since` is the first revision held (or the last written).
  ///
  /// ```swift
  /// RPCError.writesRefused(cause: "full", reason: "the disk is full", since: 40, held: 2, writtenRevision: 40)
  /// ```
  public static func writesRefused(cause: String, reason: String, since: UInt64, held: UInt64, writtenRevision: UInt64) -> RPCError {
    RPCError(
      .writesRefused,
      message: "writes are refused, nothing was run: \(reason) (since revision \(since), \(held) revisions held in memory). Reads and watches go on; writes resume by themselves once a write to the store succeeds (tried every second)",
      details: [
        "cause": .string(cause), "reason": .string(reason), "writtenRevision": .int(Int64(writtenRevision)), "held": .int(Int64(held)),
      ])
  }

  /// ``ArborError/notLeader``: a write sent to a standby, refused before it ran.
  ///
  /// ```swift
  /// RPCError.notLeader(leader: "counterfactd (pid 812 on host-a)", term: 4, store: "postgresql://arbor@db/arbor")
  /// ```
  public static func notLeader(leader: String?, term: Int64?, store: String) -> RPCError {
    var details: [String: JSONValue] = ["store": .string(store)]
    if let leader { details["leader"] = .string(leader) }
    if let term { details["term"] = .int(term) }
    return RPCError(
      .notLeader,
      message: "this daemon is a standby of \(store) and writes nothing, nothing was run: the leader is \(leader ?? "not known yet"); send writes to its socket. Reads and watches go on here",
      details: details)
  }

  /// ``ArborError/notForwarded``: an intent a standby could not hand to the leader.
  /// `queued` says whether it reached the store's queue: when it did, the leader may
  /// still run it; when not, nothing was run. `cause` is the store's error kind
  /// (`unreachable`, `io`, …) or `timeout` (queued, and no reply in time).
  ///
  /// ```swift
  /// RPCError.notForwarded(cause: "unreachable", reason: "PostgreSQL cannot be reached", queued: false, store: "postgresql://arbor@db/arbor")
  /// ```
  public static func notForwarded(cause: String, reason: String, queued: Bool, store: String) -> RPCError {
    let outcome =
      queued
      ? "it was queued, and the leader may still run it: read the state (or history.changes) before calling it again"
      : "nothing was run; call it again once the store answers"
    return RPCError(
      .notForwarded,
      message: "this standby could not forward the intent to the leader through \(store) (\(cause)): \(reason); \(outcome)",
      details: ["cause": .string(cause), "reason": .string(reason), "queued": .bool(queued), "store": .string(store)])
  }

  /// ``ArborError/snapshotRejected``.
  ///
  /// ```swift
  /// RPCError.snapshotRejected("the snapshot has format version 7; this build reads format 1")
  /// ```
  public static func snapshotRejected(_ reason: String) -> RPCError {
    RPCError(.snapshotRejected, message: "the snapshot record was refused: \(reason)")
  }

  /// ``ArborError/undoNotTracked``.
  ///
  /// ```swift
  /// RPCError.undoNotTracked(rootType: "AppModel")
  /// ```
  public static func undoNotTracked(rootType: String) -> RPCError {
    RPCError(
      .undoNotTracked, message: "no model of the tree tracks undo: call node.trackUndo() in \(rootType).onActivate()",
      details: ["root": .string(rootType)])
  }

  /// ``ArborError/nothingToUndo``.
  ///
  /// ```swift
  /// RPCError.nothingToUndo()   // there is no step to undo
  /// ```
  public static func nothingToUndo() -> RPCError { RPCError(.nothingToUndo, message: "there is no step to undo") }

  /// ``ArborError/nothingToRedo``.
  ///
  /// ```swift
  /// RPCError.nothingToRedo()   // there is no step to redo
  /// ```
  public static func nothingToRedo() -> RPCError { RPCError(.nothingToRedo, message: "there is no step to redo") }

  /// ``ArborError/targetNotFound``, with the runtime's message.
  ///
  /// ```swift
  /// RPCError.targetNotFound("/nope", message: "no model at '/nope'")
  /// ```
  public static func targetNotFound(_ target: String, message: String) -> RPCError {
    RPCError(.targetNotFound, message: message, details: ["target": .string(target)])
  }

  /// ``ArborError/intentNotFound``, with the runtime's message.
  ///
  /// ```swift
  /// RPCError.intentNotFound("explode", modelType: "CounterModel", available: ["incrementTapped"], message: "CounterModel has no intent 'explode'")
  /// ```
  public static func intentNotFound(_ intent: String, modelType: String, available: [String], message: String) -> RPCError {
    RPCError(
      .intentNotFound, message: message,
      details: ["intent": .string(intent), "modelType": .string(modelType), "available": .array(available.map(JSONValue.string))])
  }

  /// ``ArborError/invalidParameter`` of an intent (code 1003), with the runtime's message:
  /// `parameter`, `reason` and `accepted` when known.
  ///
  /// ```swift
  /// RPCError.invalidIntentParameter(intent: "set", parameter: "value", reason: "expected Int", message: "…")
  /// ```
  public static func invalidIntentParameter(
    intent: String, parameter: String? = nil, reason: String? = nil, accepted: [String]? = nil, message: String
  ) -> RPCError {
    var details: [String: JSONValue] = ["intent": .string(intent)]
    if let parameter { details["parameter"] = .string(parameter) }
    if let reason { details["reason"] = .string(reason) }
    if let accepted { details["accepted"] = .array(accepted.map(JSONValue.string)) }
    return RPCError(.invalidParameter, message: message, details: details)
  }

  /// ``ArborError/intentFailed``, with the runtime's message: the error's type and text
  /// when the intent threw, `reason` when its result could not be encoded.
  ///
  /// ```swift
  /// RPCError.intentFailed(intent: "load", errorType: "URLError", error: "offline", message: "load threw URLError: offline")
  /// ```
  public static func intentFailed(intent: String, errorType: String? = nil, error: String? = nil, reason: String? = nil, message: String) -> RPCError {
    var details: [String: JSONValue] = ["intent": .string(intent)]
    if let errorType { details["errorType"] = .string(errorType) }
    if let error { details["error"] = .string(error) }
    if let reason { details["reason"] = .string(reason) }
    return RPCError(.intentFailed, message: message, details: details)
  }
}
