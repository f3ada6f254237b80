import ArborJSON

/// One notification of the protocol with the Codable type of its `params`.
///
/// ```swift
/// for await notification in connection.notifications {
///   if let changed = try? StateChanged.params(of: notification) { print(changed.revision) }
/// }
/// ```
public protocol ArborNotificationDefinition: Sendable {
  /// The notification's `params`.
  associatedtype Params: Codable & Sendable & Hashable
  /// Its wire name.
  static var notification: ArborNotification { get }
}

extension ArborNotificationDefinition {
  /// The params of `request` when it is this notification; nil when it is another one.
  /// Throws when it is this one and its params do not decode.
  ///
  /// ```swift
  /// if let closed = try WatchClosed.params(of: notification) { print(closed.reason) }
  /// ```
  public static func params(of request: RPCRequest) throws -> Params? {
    guard request.method == notification.rawValue else { return nil }
    return try JSONValueDecoder().decode(Params.self, from: request.params ?? .null)
  }
}

extension ArborNotification {
  /// The type of its params: every notification has one.
  ///
  /// ```swift
  /// print(ArborNotification.stateChanged.definition)   // StateChanged
  /// ```
  public var definition: any ArborNotificationDefinition.Type {
    switch self {
    case .stateChanged: return StateChanged.self
    case .eventsEmitted: return EventsEmitted.self
    case .watchClosed: return WatchClosed.self
    }
  }
}

/// `state.changed`: a revision changed something at or under a watched path (a patch), or
/// a watch that fell behind is resynced (the whole value).
///
/// ```json
/// {"jsonrpc":"2.0","method":"state.changed","params":{"patch":[{"op":"replace","path":"/count","value":2}],"revision":3,"subscription":1}}
/// {"jsonrpc":"2.0","method":"state.changed","params":{"resync":true,"revision":9,"subscription":1,"value":[]}}
/// ```
public enum StateChanged: ArborNotificationDefinition {
  public static var notification: ArborNotification { .stateChanged }

  /// A patch (relative to the watched path) or, with `resync`, the whole value; `exists`
  /// is `false` when the watched path is gone.
  ///
  /// ```swift
  /// let params = StateChanged.Params(subscription: 1, revision: 3, patch: [.replace(.root, 2)])
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var subscription: Int
    public var revision: Revision
    /// The revision's changes to the watched value; nil in a resync.
    public var patch: JSONPatch?
    /// The whole value, in a resync (`null` when the path is gone); nil otherwise.
    public var value: JSONValue?
    /// `true` in a resync; nil otherwise.
    public var resync: Bool?
    /// `false` when the watched path no longer exists; nil otherwise.
    public var exists: Bool?

    /// A notification's params.
    ///
    /// ```swift
    /// let resync = StateChanged.Params(subscription: 1, revision: 9, value: [], resync: true)
    /// ```
    public init(subscription: Int, revision: Revision, patch: JSONPatch? = nil, value: JSONValue? = nil, resync: Bool? = nil, exists: Bool? = nil) {
      self.subscription = subscription
      self.revision = revision
      self.patch = patch
      self.value = value
      self.resync = resync
      self.exists = exists
    }

    enum CodingKeys: String, CodingKey { case subscription, revision, patch, value, resync, exists }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      subscription = try container.decode(Int.self, forKey: .subscription)
      revision = try container.decode(Revision.self, forKey: .revision)
      patch = try container.decodeIfPresent(JSONPatch.self, forKey: .patch)
      value = try container.decodePresentValue(forKey: .value)
      resync = try container.decodeIfPresent(Bool.self, forKey: .resync)
      exists = try container.decodeIfPresent(Bool.self, forKey: .exists)
    }
  }
}

/// `events.emitted`: a model at or under a watched path sent a Codable event.
///
/// ```json
/// {"jsonrpc":"2.0","method":"events.emitted","params":{"event":{"removeTapped":{}},"revision":5,"source":{"id":"72c769dae94f5355","path":"/counters/1","type":"CounterRowModel"},"subscription":2,"type":"CounterRowModel.Event"}}
/// ```
public enum EventsEmitted: ArborNotificationDefinition {
  public static var notification: ArborNotification { .eventsEmitted }

  /// The event, its type, the revision when it was sent, and the model that sent it.
  ///
  /// ```swift
  /// let params = EventsEmitted.Params(subscription: 2, revision: 5, type: "CounterRowModel.Event", event: ["removeTapped": [:]],
  ///   source: .init(id: "72c769dae94f5355", path: "/counters/1", type: "CounterRowModel"))
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var subscription: Int
    public var revision: Revision
    /// The event's type, such as `CounterRowModel.Event`.
    public var type: String
    /// The event's Codable form.
    public var event: JSONValue
    public var source: Source

    /// An event's params.
    ///
    /// ```swift
    /// let params = EventsEmitted.Params(subscription: 2, revision: 5, type: "T.Event", event: "tapped", source: .init(id: "72c769dae94f5355", path: "", type: "T"))
    /// ```
    public init(subscription: Int, revision: Revision, type: String, event: JSONValue, source: Source) {
      self.subscription = subscription
      self.revision = revision
      self.type = type
      self.event = event
      self.source = source
    }

    /// The params as the daemon sends them, built without an encoder: they are written for
    /// every event to every watcher that wants it. Equal to what `JSONValueEncoder` makes
    /// of them (a test checks it).
    public var jsonValue: JSONValue {
      [
        "subscription": .int(Int64(subscription)), "revision": .int(Int64(revision)), "type": .string(type), "event": event,
        "source": source.jsonValue,
      ]
    }
  }

  /// The model that sent an event: its id, its path when it sent it, its type.
  ///
  /// ```swift
  /// let source = EventsEmitted.Source(id: "72c769dae94f5355", path: "/counters/1", type: "CounterRowModel")
  /// ```
  public struct Source: Codable, Sendable, Hashable {
    public var id: String
    public var path: String
    public var type: String

    /// A sender.
    ///
    /// ```swift
    /// let source = EventsEmitted.Source(id: "72c769dae94f5355", path: "/counters/1", type: "CounterRowModel")
    /// ```
    public init(id: String, path: String, type: String) {
      self.id = id
      self.path = path
      self.type = type
    }

    /// The sender as the daemon sends it, built without an encoder. Equal to what
    /// `JSONValueEncoder` makes of it (a test checks it).
    public var jsonValue: JSONValue { ["id": .string(id), "path": .string(path), "type": .string(type)] }
  }
}

/// `watch.closed`: the daemon ended a watch (an event watch that fell too far behind).
///
/// ```json
/// {"jsonrpc":"2.0","method":"watch.closed","params":{"reason":"…","subscription":2}}
/// ```
public enum WatchClosed: ArborNotificationDefinition {
  public static var notification: ArborNotification { .watchClosed }

  /// Which watch, and why.
  ///
  /// ```swift
  /// let params = WatchClosed.Params(subscription: 2, reason: "the event watch fell 1000 events behind")
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var subscription: Int
    public var reason: String

    /// A closed watch.
    ///
    /// ```swift
    /// let params = WatchClosed.Params(subscription: 2, reason: "closed")
    /// ```
    public init(subscription: Int, reason: String) {
      self.subscription = subscription
      self.reason = reason
    }
  }
}
