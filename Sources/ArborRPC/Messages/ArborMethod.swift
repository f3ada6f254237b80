import ArborJSON

/// The methods an Arbor daemon answers, by their wire names, with the parameters each
/// takes: defined once here, for the daemon (which adds the role each needs), `ArborClient`,
/// `arborctl` and the testers.
///
/// ```swift
/// let state = try await connection.call(.stateGet, ["path": "/counters"])
/// print(ArborMethod.stateGet.rawValue)   // state.get
/// ```
public enum ArborMethod: String, CaseIterable, Sendable, Hashable {
  case discover = "rpc.discover"
  case status = "daemon.status"
  case metrics = "daemon.metrics"
  case stateGet = "state.get"
  case stateSnapshot = "state.snapshot"
  case stateRestore = "state.restore"
  case intentCall = "intent.call"
  case stateWatch = "state.watch"
  case eventsWatch = "events.watch"
  case watchCancel = "watch.cancel"
  case historyChanges = "history.changes"
  case stateAt = "state.at"
  case historyUndo = "history.undo"
  case historyRedo = "history.redo"
  case upgrade = "daemon.upgrade"

  /// The names of the parameters it accepts (by name; an unknown one is an error): the
  /// members of its definition's `Params` type, in their order, read from the type once.
  public var parameters: [String] { Self.parameterNames[self] ?? [] }

  private static let parameterNames: [ArborMethod: [String]] = Dictionary(
    uniqueKeysWithValues: allCases.map { ($0, memberNames(of: $0.definition)) })

  private static func memberNames<Definition: ArborMethodDefinition>(of definition: Definition.Type) -> [String] {
    JSONSchemaDefinitions.memberNames(of: Definition.Params.self)
  }

  /// Watches queue their own reply ahead of their notifications, so they cannot be part
  /// of a batch, whose replies travel together.
  /// An upgrade stops the daemon once it is answered: it goes alone too.
  public var canBeBatched: Bool { self != .stateWatch && self != .eventsWatch && self != .upgrade }

  /// Whether it changes the state (refused while the journal cannot write).
  public var writes: Bool { self == .intentCall || self == .stateRestore || self == .historyUndo || self == .historyRedo }

  /// The method with this name, found in a table made once: what a server does for every
  /// request (the `rawValue` initializer compares the name with each case's in turn).
  ///
  /// ```swift
  /// ArborMethod.named("intent.call")   // .intentCall
  /// ```
  public static func named(_ name: String) -> ArborMethod? { byName[name] }

  private static let byName: [String: ArborMethod] = Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })
}

/// The notifications a daemon sends on a connection with watches.
public enum ArborNotification: String, CaseIterable, Sendable, Hashable {
  /// A revision changed something at or under a watched path: `{subscription, revision, patch}`.
  case stateChanged = "state.changed"
  /// A model at or under a watched path sent an event.
  case eventsEmitted = "events.emitted"
  /// A watch ended (the connection fell behind, the daemon stops): `{subscription, reason}`.
  case watchClosed = "watch.closed"
}
