import ArborJSON

/// What one `intent.call` did, as its reply says it: the revision of its own newest
/// commit (never one another client's intent made meanwhile), its result, and, when it
/// committed several revisions, the first of them.
struct IntentOutcome: Sendable, Hashable {
  /// The newest revision the intent committed; the tree's revision when it changed nothing.
  var revision: UInt64
  var result: JSONValue
  /// The first revision it committed; nil when it committed none.
  var firstRevision: UInt64?
  /// How many revisions it committed.
  var commits: Int
  /// It wrote to a tree a restore replaced while it ran: its writes were discarded.
  var discarded = false

  /// The reply's `result` member: `{"revision": N, "result": …}`, with `firstRevision`
  /// and `commits` when the intent committed more than one revision.
  var reply: JSONValue {
    var members: [String: JSONValue] = ["revision": .int(Int64(revision)), "result": result]
    if commits > 1, let firstRevision {
      members["firstRevision"] = .int(Int64(firstRevision))
      members["commits"] = .int(Int64(commits))
    }
    return .object(members)
  }
}
