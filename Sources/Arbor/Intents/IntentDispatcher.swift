import ArborJSON

/// Calls the `@Intent` methods of the models of one tree, by target, name and JSON
/// parameters: what a daemon does for `intent.call`.
///
/// ```swift
/// let (app, anchor) = AppModel().andAnchor()
/// let dispatcher = IntentDispatcher(anchor)
/// let outcome = try await dispatcher.call("incrementTapped", on: .path("/counters/0/counter"))
/// print(outcome.revision, outcome.result)
/// ```
public struct IntentDispatcher<Root: Model>: Sendable {
  /// What a call returned: the revision of its own newest commit, and its result.
  public struct Outcome: Sendable, Hashable {
    /// The newest revision the call committed; when it changed nothing, the tree's revision
    /// when it returned. Never a revision that another writer committed meanwhile.
    public var revision: UInt64
    public var result: JSONValue
    /// The first and last revision the call committed (its synchronous part, and with
    /// ``IntentWait/settled`` the tasks it started); nil when it changed nothing. Other
    /// writers' revisions may lie between them.
    public var commits: ClosedRange<UInt64>?
    /// How many revisions the call committed.
    public var commitCount: Int
    /// Whether some of its writes were made on a tree its host had retired (replaced by a
    /// restore while the call ran): nobody sees them, and they are not kept.
    public var discarded: Bool

    public init(revision: UInt64, result: JSONValue, commits: ClosedRange<UInt64>? = nil, commitCount: Int = 0, discarded: Bool = false) {
      self.revision = revision
      self.result = result
      self.commits = commits
      self.commitCount = commitCount
      self.discarded = discarded
    }

    init(closing trace: CommitTrace, treeRevision: UInt64, result: JSONValue) {
      if let noted = trace.close() {
        self.init(
          revision: noted.last, result: result, commits: noted.first...noted.last, commitCount: noted.count, discarded: noted.discarded)
      } else {
        self.init(revision: treeRevision, result: result)
      }
    }
  }

  let anchor: ModelAnchor<Root>

  public init(_ anchor: ModelAnchor<Root>) { self.anchor = anchor }

  /// Decodes the parameters, calls the intent and encodes its result. Errors are
  /// ``IntentError``s: unknown target or intent, a missing, unknown or mistyped parameter
  /// (named), the intent's own error.
  ///
  /// With `wait: .settled` it returns once the tasks the intent started (and theirs) have
  /// ended too, with the revision that includes their writes.
  public func call(
    _ intent: String, on target: IntentTarget = .root, parameters: JSONValue = [:], wait: IntentWait = .committed
  ) async throws -> Outcome {
    let (model, cause, trace) = try traced(intent, on: target)
    defer { anchor.tree.fanOut.tracingCalls.subtract(1, ordering: .relaxed) }
    guard wait == .settled else {
      let result = try await ChangeCause.$current.withValue(cause) {
        try await Self.call(intent, on: model, parameters: parameters)
      }
      return Outcome(closing: trace, treeRevision: anchor.revision, result: result)
    }
    let work = IntentWork()
    let result = try await ChangeCause.$current.withValue(cause) {
      try await IntentWork.$current.withValue(work) {
        try await Self.call(intent, on: model, parameters: parameters)
      }
    }
    await work.settled()
    return Outcome(closing: trace, treeRevision: anchor.revision, result: result)
  }

  /// Calls a synchronous intent right here, without suspending; returns nil, having done
  /// nothing, when the intent is `async` (use ``call(_:on:parameters:)`` for those). Errors
  /// are those of ``call(_:on:parameters:)``.
  ///
  /// A server calls this where the request arrived, and starts a task only for `async`
  /// intents:
  ///
  /// ```swift
  /// if let outcome = try dispatcher.callSynchronously("incrementTapped", on: .path("/counters/0/counter")) {
  ///   reply(outcome)
  /// }
  /// ```
  public func callSynchronously(_ intent: String, on target: IntentTarget = .root, parameters: JSONValue = [:]) throws -> Outcome? {
    let (model, cause, trace) = try traced(intent, on: target)
    defer { anchor.tree.fanOut.tracingCalls.subtract(1, ordering: .relaxed) }
    let result = try ChangeCause.$current.withValue(cause) {
      try Self.callSynchronously(intent, on: model, parameters: parameters)
    }
    guard let result else { return nil }
    return Outcome(closing: trace, treeRevision: anchor.revision, result: result)
  }

  /// The model at `target`, and the cause and trace of a call of `intent` on it; the tree
  /// traces its commits until the caller subtracts the call from `tracingCalls`.
  private func traced(_ intent: String, on target: IntentTarget) throws -> (any Model, ChangeCause, CommitTrace) {
    guard let model = try anchor.model.model(at: target) else { throw IntentError.unknownTarget(target.description) }
    let trace = CommitTrace()
    anchor.tree.fanOut.tracingCalls.add(1, ordering: .relaxed)
    return (model, ChangeCause(intent: intent, target: target.spelling, trace: trace), trace)
  }

  static func call<M: Model>(_ intent: String, on model: M, parameters: JSONValue) async throws -> JSONValue {
    let (descriptor, arguments) = try Self.prepare(intent, of: M.self, parameters: parameters)
    do {
      return try await descriptor.call(model, arguments)
    } catch {
      throw Self.intentError(error, intent: intent)
    }
  }

  static func callSynchronously<M: Model>(_ intent: String, on model: M, parameters: JSONValue) throws -> JSONValue? {
    let (descriptor, arguments) = try Self.prepare(intent, of: M.self, parameters: parameters)
    guard let perform = descriptor.perform else { return nil }
    do {
      return try perform(model, arguments)
    } catch {
      throw Self.intentError(error, intent: intent)
    }
  }

  /// Finds the intent and checks the parameters' names (their values are checked as they
  /// are decoded).
  private static func prepare<M: Model>(_ intent: String, of type: M.Type, parameters: JSONValue) throws -> (_IntentDescriptor<M>, _IntentArguments) {
    // Through the model type's specialized look-up: this function runs unspecialized
    // (the model's type is only known at run time).
    guard let descriptor = M._$intent(named: intent) else {
      throw IntentError.unknownIntent(intent: intent, modelType: M._$typeName, available: M._$intents.map(\.name))
    }
    guard case .object(let values) = parameters else {
      throw IntentError.parametersNotAnObject(intent: intent, found: parameters.typeName)
    }
    // Checked without allocating; the names are gathered and sorted only for the error.
    if values.keys.contains(where: { key in !descriptor.parameters.contains { $0.key == key } }) {
      let accepted = descriptor.parameters.map(\.key)
      if let unknown = values.keys.sorted().first(where: { !accepted.contains($0) }) {
        throw IntentError.unknownParameter(intent: intent, parameter: unknown, accepted: accepted)
      }
    }
    return (descriptor, _IntentArguments(intent: intent, values: values))
  }

  private static func intentError(_ error: any Error, intent: String) -> IntentError {
    if let error = error as? IntentError { return error }
    if let error = error as? InvalidParameter {
      return IntentError.invalidParameter(intent: intent, parameter: error.parameter, reason: error.reason)
    }
    return IntentError.failed(intent: intent, errorType: String(describing: type(of: error)), message: "\(error)")
  }
}

extension Model {
  /// The names of the model type's intents, in declaration order.
  ///
  /// ```swift
  /// CounterModel.intentNames   // ["incrementTapped", "decrementTapped", "factButtonTapped"]
  /// ```
  public static var intentNames: [String] { _$intents.map(\.name) }
}
