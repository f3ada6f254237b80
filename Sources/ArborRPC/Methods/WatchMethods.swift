import ArborJSON

/// `state.watch {path?, since?}`: the value at a path, then a ``StateChanged`` notification
/// for every later revision that changed it. (`ArborClient`'s `StateWatch` is the sequence
/// built on it.)
///
/// ```swift
/// let reply = try await connection.call(StateWatchMethod.self, .init(path: "/counters"))
/// print(reply.subscription, reply.revision, reply.value ?? nil)
/// ```
public enum StateWatchMethod: ArborMethodDefinition {
  public static var method: ArborMethod { .stateWatch }
  public static var summary: String {
    "The value at a path and its revision, then state.changed notifications with the patch of each later revision (with since: the revisions after it, then the live ones)."
  }
  public static var parameterNotes: [String: String] { ["path": StatePath.note, "since": "replay the revisions after this one first"] }

  /// What to watch, and from when.
  ///
  /// ```swift
  /// let params = StateWatchMethod.Params(path: "/counters", since: 12)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// A JSON Pointer; nil (or `""`) is the root.
    public var path: String?
    /// Replays the revisions after it; the reply then has no value.
    public var since: Revision?

    /// A watch of `path` (the root by default), from now or after `since`.
    ///
    /// ```swift
    /// let params = StateWatchMethod.Params(path: "/counters")
    /// ```
    public init(path: String? = nil, since: Revision? = nil) {
      self.path = path
      self.since = since
    }
  }

  /// The watch's number, and the value at `revision` (absent with `since`, where
  /// `revision` is `since`).
  ///
  /// ```swift
  /// let result = StateWatchMethod.Result(subscription: 1, revision: 3, value: [1, 2])
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var subscription: Int
    public var revision: Revision
    /// The value; nil when absent (a watch with `since`), `.null` when it is `null`.
    public var value: JSONValue?

    /// A watch's reply.
    ///
    /// ```swift
    /// let result = StateWatchMethod.Result(subscription: 1, revision: 3)
    /// ```
    public init(subscription: Int, revision: Revision, value: JSONValue? = nil) {
      self.subscription = subscription
      self.revision = revision
      self.value = value
    }

    enum CodingKeys: String, CodingKey { case subscription, revision, value }

    public init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      subscription = try container.decode(Int.self, forKey: .subscription)
      revision = try container.decode(Revision.self, forKey: .revision)
      value = try container.decodePresentValue(forKey: .value)
    }

    /// The reply as the daemon sends it, built without an encoder: it carries the whole
    /// watched value and is queued under the daemon's watch lock. Equal to what
    /// `JSONValueEncoder` makes of it (a test checks both shapes).
    public var jsonValue: JSONValue {
      var members: [String: JSONValue] = ["subscription": .int(Int64(subscription)), "revision": .int(Int64(revision))]
      if let value { members["value"] = value }
      return .object(members)
    }
  }
}

/// `events.watch {path?, types?}`: an ``EventsEmitted`` notification for every Codable
/// event sent at or under a path.
///
/// ```swift
/// let reply = try await connection.call(EventsWatch.self, .init(types: ["CounterRowModel.Event"]))
/// print(reply.subscription)
/// ```
public enum EventsWatch: ArborMethodDefinition {
  public static var method: ArborMethod { .eventsWatch }
  public static var summary: String { "events.emitted notifications for the Codable events sent at or below a path." }
  public static var parameterNotes: [String: String] { ["path": StatePath.note, "types": "the event types to send; all when absent"] }

  /// Where, and which types.
  ///
  /// ```swift
  /// let params = EventsWatch.Params(path: "/counters", types: ["CounterRowModel.Event"])
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// A JSON Pointer; nil (or `""`) is the root.
    public var path: String?
    /// The event types wanted; all when nil.
    public var types: [String]?

    /// An event watch.
    ///
    /// ```swift
    /// let params = EventsWatch.Params()
    /// ```
    public init(path: String? = nil, types: [String]? = nil) {
      self.path = path
      self.types = types
    }
  }

  /// The watch's number.
  ///
  /// ```swift
  /// let result = EventsWatch.Result(subscription: 2)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var subscription: Int

    /// A watch's number.
    ///
    /// ```swift
    /// let result = EventsWatch.Result(subscription: 2)
    /// ```
    public init(subscription: Int) { self.subscription = subscription }

    /// The reply as the daemon sends it, built without an encoder. Equal to what
    /// `JSONValueEncoder` makes of it (a test checks it).
    public var jsonValue: JSONValue { ["subscription": .int(Int64(subscription))] }
  }
}

/// `watch.cancel {subscription}`: ends a watch of this connection.
///
/// ```swift
/// let cancelled = try await connection.call(WatchCancel.self, .init(subscription: 1))
/// print(cancelled.cancelled)   // true
/// ```
public enum WatchCancel: ArborMethodDefinition {
  public static var method: ArborMethod { .watchCancel }
  public static var summary: String { "Ends a watch of this connection." }

  /// Which watch.
  ///
  /// ```swift
  /// let params = WatchCancel.Params(subscription: 1)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// The number a watch replied with.
    public var subscription: Int

    /// Ends watch `subscription`.
    ///
    /// ```swift
    /// let params = WatchCancel.Params(subscription: 1)
    /// ```
    public init(subscription: Int) { self.subscription = subscription }
  }

  /// The watch ended.
  ///
  /// ```swift
  /// let result = WatchCancel.Result(subscription: 1)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var subscription: Int
    /// Always `true`.
    public var cancelled: Bool

    /// A cancelled watch.
    ///
    /// ```swift
    /// let result = WatchCancel.Result(subscription: 1)
    /// ```
    public init(subscription: Int, cancelled: Bool = true) {
      self.subscription = subscription
      self.cancelled = cancelled
    }
  }
}
