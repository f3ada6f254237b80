import ArborLocking
/// One memoized value of a model: the cached result, whether a dependency changed since it
/// was computed, and the observer that tracks those dependencies.
///
/// Readers depend on the entry's pseudo-property (`slot`, a negative index on the model's
/// context), so an `Observed` of a memoized value wakes when the value is invalidated — or,
/// for `Equatable` values that someone observes, only when the recomputed value differs.
final class MemoEntry: Sendable {
  private struct State {
    var value: (any Sendable)?
    var dirty = true
    /// The observer of the dependencies of the current value; older ones are ignored.
    var tracker: AccessObserver?
    /// Recomputes and compares, for Equatable values; nil otherwise.
    var refresh: (@Sendable () -> Bool)?
    /// The model's context, held weakly: a change handed to this entry on another thread
    /// holds the entry while the model may be removed and freed (the writer holds the
    /// model it wrote, not this one).
    weak var context: AnyModelContext?
  }

  let slot: Int
  private let state: LockedState<State>

  init(slot: Int, context: AnyModelContext) {
    self.slot = slot
    var initial = State()
    initial.context = context
    state = LockedState(initial)
  }

  /// The cached value when no dependency changed since it was computed.
  func cached<T>(as type: T.Type) -> T? {
    state.withLock { $0.dirty ? nil : $0.value as? T }
  }

  /// Computes the value, recording its dependencies on a new tracker, and caches it;
  /// `refresh` replaces the recompute-and-compare step unless `keepingRefresh`.
  func compute<T: Sendable>(_ body: () -> T, refresh: (@Sendable () -> Bool)?, keepingRefresh: Bool = false) -> T {
    let tracker = AccessObserver(onChange: { [weak self] in self?.dependencyChanged() })
    let value = AccessTracking.recording(tracker, body)
    let previous = state.withLock { state -> AccessObserver? in
      let previous = state.tracker
      state.value = value
      state.dirty = false
      state.tracker = tracker
      if !keepingRefresh { state.refresh = refresh }
      return previous
    }
    previous?.unregisterAll()
    return value
  }

  /// Drops the tracker, which holds the contexts it depends on; the model was deactivated.
  func release() {
    let tracker = state.withLock { state -> AccessObserver? in
      defer {
        state.tracker = nil
        state.refresh = nil
        state.dirty = true
      }
      return state.tracker
    }
    tracker?.unregisterAll()
  }

  /// Stores a recomputed value; true when it differs from the cached one.
  func store<T: Sendable & Equatable>(_ value: T) -> Bool {
    state.withLock { state in
      let changed = (state.value as? T) != value
      state.value = value
      state.dirty = false
      return changed
    }
  }

  /// A dependency changed: observed Equatable values are recomputed at once and their
  /// readers woken only if the result differs; others are marked stale and their readers
  /// woken, to recompute when next read. Runs without a tree lock.
  private func dependencyChanged() {
    let (refresh, context) = state.withLock { state in
      state.dirty = true
      return (state.refresh, state.context)
    }
    // The model is gone: nobody can read this value again.
    guard let context else { return }
    let observed = context.withLock { context.observers.contains { $0.property == slot } }
    if let refresh, observed, !refresh() { return }
    context.touch(slot)
  }
}
