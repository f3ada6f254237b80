/// One watch of a connection handed to the next process: the same subscription number,
/// what it watches, and whether it was waiting for a resync. The next process registers
/// it on the same connection, at the revision the handing process stopped at, so the
/// watcher's next notification is the revision after the last one it got.
///
/// ```swift
/// let watch = HandedWatch(subscription: 3, kind: .state, scope: "/counters", types: nil, awaitingResync: false)
/// ```
struct HandedWatch: Codable, Sendable, Equatable {
  enum Kind: String, Codable, Sendable {
    /// `state.watch` (its scope is a JSON pointer).
    case state
    /// `events.watch` (its scope is a model path; `types` the event types it takes).
    case events
  }

  var subscription: Int
  var kind: Kind
  var scope: String
  var types: [String]?
  var awaitingResync: Bool
}

extension HandedWatch {
  /// The same watch, to be resynced before its next patch (a state watch; an events
  /// watch has nothing to resync).
  func resyncingFirst() -> HandedWatch {
    var watch = self
    watch.awaitingResync = kind == .state
    return watch
  }
}
