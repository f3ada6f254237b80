import ConcurrencyExtras

/// One cancellable piece of work of a model: a task, a `forEach`, or anything registered
/// with an id. Guarded by the lock of its model's context.
final class CancellableEntry {
  let id: Int
  @exclusivity(unchecked) var keys: [AnyHashableSendable]
  @exclusivity(unchecked) var task: Task<Void, Never>?
  @exclusivity(unchecked) var isCancelled = false

  init(id: Int, keys: [AnyHashableSendable]) {
    self.id = id
    self.keys = keys
  }
}

extension AnyModelContext {
  /// Registers new work. Returns nil when the model is destructed: its work would be
  /// cancelled at once.
  final func registerCancellable(keys: [AnyHashableSendable]) -> CancellableEntry? {
    withLock {
      guard lifetime != .destructed else { return nil }
      let hooks = ensureHooks
      hooks.nextCancellableID += 1
      let entry = CancellableEntry(id: hooks.nextCancellableID, keys: keys)
      hooks.cancellables[entry.id] = entry
      return entry
    }
  }

  /// Attaches the running task to its entry; cancels it at once if the entry was cancelled
  /// in between.
  final func attach(_ task: Task<Void, Never>, to entry: CancellableEntry) {
    let cancelNow: Bool = withLock {
      entry.task = task
      return entry.isCancelled
    }
    if cancelNow { task.cancel() }
  }

  /// Forgets finished work.
  final func unregister(_ entry: CancellableEntry) {
    withLock {
      _ = hooks?.cancellables.removeValue(forKey: entry.id)
    }
  }

  /// Cancels one entry, outside the lock.
  final func cancel(_ entry: CancellableEntry) {
    let tasks: [Task<Void, Never>] = withLock {
      guard hooks?.cancellables.removeValue(forKey: entry.id) != nil else { return [] }
      entry.isCancelled = true
      return deferInsideTransaction(entry.task.map { [$0] } ?? [])
    }
    for task in tasks { task.cancel() }
  }

  /// Cancels the entries `selecting` picks, outside the lock. Returns how many.
  @discardableResult
  final func cancelEntries(where selecting: (CancellableEntry) -> Bool) -> Int {
    let (tasks, count): ([Task<Void, Never>], Int) = withLock {
      guard let hooks else { return ([], 0) }
      var picked: [Task<Void, Never>] = []
      var count = 0
      for (id, entry) in hooks.cancellables where selecting(entry) {
        entry.isCancelled = true
        if let task = entry.task { picked.append(task) }
        hooks.cancellables.removeValue(forKey: id)
        count += 1
      }
      return (deferInsideTransaction(picked), count)
    }
    for task in tasks { task.cancel() }
    return count
  }

  /// Cancelling runs the tasks' cancellation handlers (user code) on this thread. Inside a
  /// transaction this thread holds the tree lock, so the cancellation waits for the
  /// commit. Lock held; returns what may be cancelled now.
  final func deferInsideTransaction(_ tasks: [Task<Void, Never>]) -> [Task<Void, Never>] {
    guard !tasks.isEmpty, let tree, tree.depth > 0 else { return tasks }
    // The lock is recursive and held here, so a depth above zero is this thread's own
    // transaction.
    tree.pendingCancellations.append(contentsOf: tasks)
    return []
  }

  /// Adds `key` to an entry; with `cancelInFlight`, first cancels the other entries that
  /// have it.
  final func add(key: AnyHashableSendable, to entry: CancellableEntry, cancelInFlight: Bool) {
    if cancelInFlight {
      cancelEntries { $0 !== entry && $0.keys.contains(key) }
    }
    withLock {
      if !entry.keys.contains(key) { entry.keys.append(key) }
    }
  }
}
