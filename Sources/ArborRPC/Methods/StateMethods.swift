import ArborJSON

/// `state.get {path?}`: the value at a path and the revision it was read at.
///
/// ```swift
/// let count = try await client.call(StateGet.self, .init(path: "/counters/0/counter/count"))
/// print(count.revision, count.value)   // 2 1
/// ```
public enum StateGet: ArborMethodDefinition {
  public static var method: ArborMethod { .stateGet }
  public static var summary: String { "The state at a path (a JSON Pointer; \"\" is the root) and the revision it reflects." }
  public static var parameterNotes: [String: String] { ["path": StatePath.note] }

  /// Where to read.
  ///
  /// ```swift
  /// let params = StateGet.Params(path: "/counters")
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// A JSON Pointer; nil (or `""`) is the root.
    public var path: String?

    /// The value at `path`, the root by default.
    ///
    /// ```swift
    /// let root = StateGet.Params()
    /// ```
    public init(path: String? = nil) { self.path = path }
  }

  /// The value and its revision.
  ///
  /// ```swift
  /// let result = StateGet.Result(revision: 2, value: 1)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var revision: Revision
    public var value: JSONValue

    /// A value read at `revision`.
    ///
    /// ```swift
    /// let result = StateGet.Result(revision: 2, value: ["count": 1])
    /// ```
    public init(revision: Revision, value: JSONValue) {
      self.revision = revision
      self.value = value
    }
  }
}

/// The note the discovery document gives a `path` parameter.
enum StatePath {
  static let note = "a JSON Pointer into the state; \"\" (the default) is the root"
}

/// `state.snapshot`: the snapshot record of the whole tree (`Docs/Protocol.md`, *The
/// snapshot record*).
///
/// ```swift
/// let record = try await client.call(StateSnapshot.self, NoParams())
/// print(record.root, record.revision)
/// ```
public enum StateSnapshot: ArborMethodDefinition {
  public typealias Params = NoParams
  public typealias Result = Record
  public static var method: ArborMethod { .stateSnapshot }
  public static var summary: String { "The snapshot record of the whole tree." }

  /// A snapshot record as JSON: the fields of `Arbor`'s `SnapshotRecord`, with `createdAt`
  /// as its ISO 8601 text.
  ///
  /// ```swift
  /// let record = StateSnapshot.Record(format: 1, root: "AppModel", schema: "sha256:…", revision: 4, createdAt: "2026-11-22T13:00:00Z", state: [:])
  /// ```
  public struct Record: Codable, Sendable, Hashable {
    /// The layout of the record, `1`.
    public var format: Int
    /// The root model's type name.
    public var root: String
    /// `sha256:` and the hash of the root's state schema.
    public var schema: String
    public var revision: Revision
    /// ISO 8601, UTC, to the second.
    public var createdAt: String
    public var state: JSONValue

    /// A record.
    ///
    /// ```swift
    /// let record = StateSnapshot.Record(format: 1, root: "AppModel", schema: "sha256:00", revision: 0, createdAt: "2026-11-22T13:00:00Z", state: [:])
    /// ```
    public init(format: Int, root: String, schema: String, revision: Revision, createdAt: String, state: JSONValue) {
      self.format = format
      self.root = root
      self.schema = schema
      self.revision = revision
      self.createdAt = createdAt
      self.state = state
    }
  }
}

/// `state.restore {record}`: replaces the whole tree by the one in a snapshot record.
///
/// ```swift
/// let record = try await client.call(StateSnapshot.self, NoParams())
/// let restored = try await client.call(StateRestore.self, .init(record: record))
/// print(restored.revision)
/// ```
public enum StateRestore: ArborMethodDefinition {
  public static var method: ArborMethod { .stateRestore }
  public static var summary: String { "Replaces the tree from a snapshot record; watchers get a resync." }
  public static var parameterNotes: [String: String] { ["record": "a snapshot record, as state.snapshot returns it"] }

  /// The record to restore.
  ///
  /// ```swift
  /// let params = StateRestore.Params(record: record)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var record: StateSnapshot.Record

    /// Restores `record`.
    ///
    /// ```swift
    /// let params = StateRestore.Params(record: record)
    /// ```
    public init(record: StateSnapshot.Record) { self.record = record }
  }

  /// The revision of the restored tree: above every one served so far.
  ///
  /// ```swift
  /// let result = StateRestore.Result(revision: 9)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var revision: Revision

    /// The restored tree's revision.
    ///
    /// ```swift
    /// let result = StateRestore.Result(revision: 9)
    /// ```
    public init(revision: Revision) { self.revision = revision }
  }
}

/// `state.at {revision, path?}`: the value at a path as it was at a past revision.
///
/// ```swift
/// let then = try await client.call(StateAt.self, .init(revision: 4, path: "/counters/0/counter/count"))
/// print(then.value, then.time)
/// ```
public enum StateAt: ArborMethodDefinition {
  public static var method: ArborMethod { .stateAt }
  public static var summary: String { "The state at a path as it was at a past revision inside the history kept (time travel)." }
  public static var parameterNotes: [String: String] { ["path": StatePath.note] }

  /// Which revision and where.
  ///
  /// ```swift
  /// let params = StateAt.Params(revision: 4)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var revision: Revision
    /// A JSON Pointer; nil (or `""`) is the root.
    public var path: String?

    /// The value at `path` (the root by default) at `revision`.
    ///
    /// ```swift
    /// let params = StateAt.Params(revision: 4, path: "/counters")
    /// ```
    public init(revision: Revision, path: String? = nil) {
      self.revision = revision
      self.path = path
    }
  }

  /// The value then, and when that revision was committed.
  ///
  /// ```swift
  /// let result = StateAt.Result(revision: 4, value: 3, time: "2026-11-23T17:56:00.903Z")
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var revision: Revision
    public var value: JSONValue
    /// ISO 8601 with milliseconds.
    public var time: String

    /// A past value.
    ///
    /// ```swift
    /// let result = StateAt.Result(revision: 4, value: 3, time: "2026-11-23T17:56:00.903Z")
    /// ```
    public init(revision: Revision, value: JSONValue, time: String) {
      self.revision = revision
      self.value = value
      self.time = time
    }
  }
}
