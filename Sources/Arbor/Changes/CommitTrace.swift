import ArborLocking

/// The revisions one call committed: the tree notes each transaction that changed state
/// and carries a ``ChangeCause`` with a trace. An ``IntentDispatcher`` call reports them,
/// so that a reply names the intent's own commits, never a revision another writer made
/// meanwhile.
///
/// Writes of the tasks the intent started carry the same cause and are noted too, while
/// the trace is open; the call closes it when it returns.
///
/// A struct over its lock's one allocation (copies share the trace): one is made for
/// every intent call.
struct CommitTrace: Sendable {
  private struct State {
    var first: UInt64?
    var last: UInt64?
    var count = 0
    var discarded = false
    var open = true
  }

  private let state = LockedState(State())

  /// Notes a committed revision; `discarded` when the tree was retired and nobody will see
  /// it. Called by the tree with its lock held.
  func committed(_ revision: UInt64, discarded: Bool = false) {
    state.withLock { state in
      guard state.open else { return }
      if discarded { state.discarded = true }
      if state.first == nil { state.first = revision }
      state.last = revision
      state.count += 1
    }
  }

  /// Closes the trace and returns what it noted: the first and last revision, how many,
  /// and whether any of them was made on a retired tree.
  func close() -> (first: UInt64, last: UInt64, count: Int, discarded: Bool)? {
    state.withLock { state in
      state.open = false
      guard let first = state.first, let last = state.last else { return nil }
      return (first, last, state.count, state.discarded)
    }
  }
}
