import Dependencies

/// Closures attached to a model's lifetime: extra activation steps added with
/// `withActivation`, and cancellation steps added with `node.onCancel`.
final class ContextHooks {
  // Guarded by the tree lock (or the stripe lock before anchoring).
  @exclusivity(unchecked) var activations: [@Sendable (any Model) -> Void] = []
  @exclusivity(unchecked) var cancellations: [@Sendable () -> Void] = []
  @exclusivity(unchecked) var cancellables: [Int: CancellableEntry] = [:]
  @exclusivity(unchecked) var nextCancellableID = 0
  @exclusivity(unchecked) var eventListeners: [EventListener] = []
  @exclusivity(unchecked) var dependencyOverride: DependencyOverride?
  @exclusivity(unchecked) var resolvedDependencies: DependencyValues?
  /// `node.memoize` entries by key, each with a negative pseudo-property of its own.
  @exclusivity(unchecked) var memos: [AnyHashable: MemoEntry] = [:]
  @exclusivity(unchecked) var nextMemoSlot = -1
  /// Context values and preference contributions (`node.context`, `node.preference`).
  @exclusivity(unchecked) var storage: ContextStorageTable?
}

extension AnyModelContext {
  final var ensureHooks: ContextHooks {
    if let hooks { return hooks }
    let created = ContextHooks()
    hooks = created
    return created
  }

  /// Runs `onActivate()` and then each `withActivation` closure, in the order they were
  /// added, inside the activation scope ``activate(all:)`` entered. Called without the lock.
  private final func activateInScope(_ model: any Model) {
    model.onActivate()
    guard let activations = withLock({ hooks?.activations }), !activations.isEmpty else { return }
    for activation in activations { activation(model) }
  }

  /// Activates `models` in their order, in one activation scope (entered once: a tree of
  /// 100,000 models paid a task-local value's push and pop for each).
  static func activate(all models: [Activation]) {
    guard !models.isEmpty else { return }
    ActivationScope.$isActivating.withValue(true) {
      // Borrowed in place: a `for in` copied each entry (a retain and a release of the
      // model and its context, through their side tables).
      models.withUnsafeBufferPointer { entries in
        for index in entries.indices { entries[index].context.activateInScope(entries[index].model) }
      }
    }
  }

  /// Cancels the model's work: its tasks, then its `onCancel` closures, newest first.
  /// Called without the lock, parents before children.
  final func deactivate() {
    cancelEntries { _ in true }
    // Memoized values are dropped too: they let go of their dependencies, which hold this
    // context in turn.
    let (cancellations, memos): ([@Sendable () -> Void], [MemoEntry]) = withLock {
      guard let hooks else { return ([], []) }
      defer {
        hooks.cancellations = []
        hooks.memos = [:]
      }
      return (hooks.cancellations, Array(hooks.memos.values))
    }
    for cancellation in cancellations.reversed() { cancellation() }
    for memo in memos { memo.release() }
  }
}
