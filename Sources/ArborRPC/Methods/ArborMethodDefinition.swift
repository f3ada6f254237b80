import ArborJSON

/// One method of the protocol with the Codable types of its parameters and its result:
/// what the daemon decodes and replies, what `rpc.discover` describes (its schemas are
/// inferred from these types), and what `ArborClient`'s typed calls send and read.
///
/// ```swift
/// let reply = try await client.call(StateGet.self, .init(path: "/counters"))
/// print(reply.revision, reply.value)
/// print(StateGet.method.rawValue)   // state.get
/// ```
public protocol ArborMethodDefinition: Sendable {
  /// The parameters, by name; ``NoParams`` for a method that takes none.
  associatedtype Params: Codable & Sendable & Hashable
  /// The `result` member of a successful reply.
  associatedtype Result: Codable & Sendable & Hashable
  /// The method's wire name.
  static var method: ArborMethod { get }
  /// One sentence on what it does, for the discovery document.
  static var summary: String { get }
  /// What a parameter means beyond its type (a JSON Pointer, a range), by name, for the
  /// discovery document.
  static var parameterNotes: [String: String] { get }
}

extension ArborMethodDefinition {
  /// No notes.
  public static var parameterNotes: [String: String] { [:] }
}

/// The parameters of a method that takes none: `{}`, or no `params` at all.
///
/// ```swift
/// let status = try await client.call(DaemonStatus.self, NoParams())
/// ```
public struct NoParams: Codable, Sendable, Hashable {
  /// No parameters.
  ///
  /// ```swift
  /// let none = NoParams()
  /// ```
  public init() {}
}

/// A revision of the tree: an integer ≥ 0, one more with every committed transaction.
///
/// ```swift
/// let since: Revision = 12
/// ```
public typealias Revision = UInt64

extension ArborMethod {
  /// The types of its parameters and result: every method has one, and the daemon routes
  /// on the same cases.
  ///
  /// ```swift
  /// print(ArborMethod.stateGet.definition.summary)
  /// ```
  public var definition: any ArborMethodDefinition.Type {
    switch self {
    case .discover: return RPCDiscover.self
    case .status: return DaemonStatus.self
    case .metrics: return DaemonMetrics.self
    case .stateGet: return StateGet.self
    case .stateSnapshot: return StateSnapshot.self
    case .stateRestore: return StateRestore.self
    case .intentCall: return IntentCall.self
    case .stateWatch: return StateWatchMethod.self
    case .eventsWatch: return EventsWatch.self
    case .watchCancel: return WatchCancel.self
    case .historyChanges: return HistoryChanges.self
    case .stateAt: return StateAt.self
    case .historyUndo: return HistoryUndo.self
    case .historyRedo: return HistoryRedo.self
    case .upgrade: return DaemonUpgradeMethod.self
    }
  }
}

extension KeyedEncodingContainer {
  /// Writes `value`, or `null` when it is nil (where synthesized coding would leave the
  /// key out): for members the protocol always sends.
  mutating func encodeOrNull<T: Encodable>(_ value: T?, forKey key: Key) throws {
    if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
  }
}

extension KeyedDecodingContainer {
  /// A JSON value that may be absent (nil) or `null` (`.null`): the two differ on the wire.
  func decodePresentValue(forKey key: Key) throws -> JSONValue? {
    // Not `nil` in a conditional: `JSONValue` is `ExpressibleByNilLiteral` too.
    guard contains(key) else { return Optional<JSONValue>.none }
    return .some(try decode(JSONValue.self, forKey: key))
  }
}
