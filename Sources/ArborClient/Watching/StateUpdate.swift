import ArborJSON

/// One step of a watched value: the value at the watched path after a revision.
///
/// ```swift
/// for try await update in client.watch("/counters/0/counter/count") {
///   if case .patch(let patch) = update.kind { print(patch) }
///   print("revision \(update.revision):", update.value ?? "gone")
/// }
/// ```
public struct StateUpdate: Sendable, Hashable {
  /// How the value came to be.
  public enum Kind: Sendable, Hashable {
    /// The value when the watch started (now, or at the `since` revision it was given).
    case initial
    /// A revision's patch (paths relative to the watched path), applied to the previous value.
    case patch(JSONPatch)
    /// The value replaced as a whole: the daemon resynchronized a watcher that fell
    /// behind, a restore replaced the tree, or a reconnect could not resume from the last
    /// revision seen (the daemon lost it, or it is older than the history kept).
    case resync
  }

  /// The revision of the tree this value belongs to.
  public var revision: UInt64
  /// The value at the watched path; nil when nothing is there (any more).
  public var value: JSONValue?
  /// How the value came to be.
  public var kind: Kind

  public init(revision: UInt64, value: JSONValue?, kind: Kind) {
    self.revision = revision
    self.value = value
    self.kind = kind
  }
}
