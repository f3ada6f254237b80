import ArborJSON

/// `history.changes {since?, limit?}`: the journalled revisions after `since`, oldest
/// first, a page at a time.
///
/// ```swift
/// let page = try await client.call(HistoryChanges.self, .init(since: 4, limit: 1))
/// for change in page.changes { print(change.revision, change.intent ?? "-", change.patch) }
/// ```
public enum HistoryChanges: ArborMethodDefinition {
  public static var method: ArborMethod { .historyChanges }
  public static var summary: String {
    "The journalled revisions after 'since' (oldest first, at most 'limit'), each with its time, intent, target and patch, and where the next page starts."
  }
  /// The most revisions one page holds.
  public static let maxLimit = 10_000
  /// The revisions a page holds when `limit` is not given.
  public static let defaultLimit = 100
  public static var parameterNotes: [String: String] {
    ["since": "the revision after which to start; the oldest kept when absent", "limit": "from 1 to \(maxLimit); \(defaultLimit) when absent"]
  }

  /// Where the page starts and how long it is.
  ///
  /// ```swift
  /// let params = HistoryChanges.Params(since: 4, limit: 50)
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    public var since: Revision?
    /// From 1 to ``HistoryChanges/maxLimit``; ``HistoryChanges/defaultLimit`` when nil.
    public var limit: Int?

    /// A page.
    ///
    /// ```swift
    /// let params = HistoryChanges.Params(since: 0)
    /// ```
    public init(since: Revision? = nil, limit: Int? = nil) {
      self.since = since
      self.limit = limit
    }
  }

  /// One journalled revision.
  ///
  /// ```swift
  /// let change = HistoryChanges.Change(revision: 5, time: "2026-11-23T17:56:00.908Z", intent: "incrementTapped", target: "/counters/0/counter", patch: [])
  /// ```
  public struct Change: Codable, Sendable, Hashable {
    public var revision: Revision
    /// ISO 8601 with milliseconds.
    public var time: String
    /// The intent as the client spelled it, `event:TYPE.CASE`, `history.undo`,
    /// `history.redo`, or nil (`null`) when none of these made the change.
    public var intent: String?
    /// The intent's target as the client spelled it, or nil (`null`).
    public var target: String?
    /// The patch against the revision before.
    public var patch: JSONPatch

    /// A change.
    ///
    /// ```swift
    /// let change = HistoryChanges.Change(revision: 1, time: "2026-11-23T17:56:00.000Z", intent: nil, target: nil, patch: [])
    /// ```
    public init(revision: Revision, time: String, intent: String?, target: String?, patch: JSONPatch) {
      self.revision = revision
      self.time = time
      self.intent = intent
      self.target = target
      self.patch = patch
    }

    enum CodingKeys: String, CodingKey { case revision, time, intent, target, patch }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(revision, forKey: .revision)
      try container.encode(time, forKey: .time)
      try container.encodeOrNull(intent, forKey: .intent)
      try container.encodeOrNull(target, forKey: .target)
      try container.encode(patch, forKey: .patch)
    }
  }

  /// A page of changes, the oldest revision kept, the current revision, and where the next
  /// page starts (nil, `null`, on the last).
  ///
  /// ```swift
  /// let page = HistoryChanges.Result(changes: [], oldest: 0, revision: 25, next: nil)
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    public var changes: [Change]
    public var oldest: Revision
    public var revision: Revision
    /// The `since` of the next page; nil (`null`) on the last.
    public var next: Revision?

    /// A page.
    ///
    /// ```swift
    /// let page = HistoryChanges.Result(changes: [], oldest: 0, revision: 25, next: 5)
    /// ```
    public init(changes: [Change], oldest: Revision, revision: Revision, next: Revision?) {
      self.changes = changes
      self.oldest = oldest
      self.revision = revision
      self.next = next
    }

    enum CodingKeys: String, CodingKey { case changes, oldest, revision, next }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(changes, forKey: .changes)
      try container.encode(oldest, forKey: .oldest)
      try container.encode(revision, forKey: .revision)
      try container.encodeOrNull(next, forKey: .next)
    }
  }
}

/// `history.undo`: undoes the most recent step of the tree's undo system.
///
/// ```swift
/// let step = try await client.call(HistoryUndo.self, NoParams())
/// print(step.revision, step.canUndo, step.canRedo)
/// ```
public enum HistoryUndo: ArborMethodDefinition {
  public typealias Params = NoParams
  public typealias Result = UndoResult
  public static var method: ArborMethod { .historyUndo }
  public static var summary: String {
    "Undoes the most recent undo step of the tree (the root tracks undo with node.trackUndo) as one transaction; replies with the new revision."
  }
}

/// `history.redo`: redoes the most recently undone step.
///
/// ```swift
/// let step = try await client.call(HistoryRedo.self, NoParams())
/// print(step.revision)
/// ```
public enum HistoryRedo: ArborMethodDefinition {
  public typealias Params = NoParams
  public typealias Result = UndoResult
  public static var method: ArborMethod { .historyRedo }
  public static var summary: String { "Redoes the most recently undone step as one transaction; replies with the new revision." }
}

/// What `history.undo` and `history.redo` reply: the revision of the step's commit, and
/// whether another step can be undone or redone.
///
/// ```swift
/// let step = UndoResult(revision: 3, canUndo: true, canRedo: true)
/// ```
public struct UndoResult: Codable, Sendable, Hashable {
  public var revision: Revision
  public var canUndo: Bool
  public var canRedo: Bool

  /// A step's outcome.
  ///
  /// ```swift
  /// let step = UndoResult(revision: 3, canUndo: false, canRedo: true)
  /// ```
  public init(revision: Revision, canUndo: Bool, canRedo: Bool) {
    self.revision = revision
    self.canUndo = canUndo
    self.canRedo = canRedo
  }
}
