/// What made a revision: the intent called through an ``IntentDispatcher`` and its target.
/// Writes made by the intent's synchronous part and by the tasks it started (they inherit
/// it) carry it; writes made otherwise carry none.
///
/// ```swift
/// for await changeSet in anchor.changeSets() {
///   print(changeSet.revision, changeSet.cause?.intent ?? "-")
/// }
/// ```
public struct ChangeCause: Sendable, Hashable {
  /// The intent's name, e.g. `incrementTapped`.
  public var intent: String
  /// The intent's target as it was called: a JSON Pointer or an id.
  public var target: String
  /// Where the tree notes the revisions committed under this cause (a dispatcher's call);
  /// not part of the cause's identity.
  let trace: CommitTrace?

  public init(intent: String, target: String) {
    self.init(intent: intent, target: target, trace: nil)
  }

  init(intent: String, target: String, trace: CommitTrace?) {
    self.intent = intent
    self.target = target
    self.trace = trace
  }

  public static func == (lhs: ChangeCause, rhs: ChangeCause) -> Bool {
    lhs.intent == rhs.intent && lhs.target == rhs.target
  }

  public func hash(into hasher: inout Hasher) {
    hasher.combine(intent)
    hasher.combine(target)
  }

  /// The cause of the writes made in this task (and the tasks it starts).
  @TaskLocal public static var current: ChangeCause?
}
