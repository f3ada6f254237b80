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
    let task: Task<Void, Never>? = withLock {
      guard hooks?.cancellables.removeValue(forKey: entry.id) != nil else { return nil }
      entry.isCancelled = true
      return entry.task
    }
    task?.cancel()
  }

  /// Cancels the entries `selecting` picks, outside the lock. Returns how many.
  @discardableResult
  final func cancelEntries(where selecting: (CancellableEntry) -> Bool) -> Int {
    let tasks: [Task<Void, Never>?] = withLock {
      guard let hooks else { return [] }
      var picked: [Task<Void, Never>?] = []
      for (id, entry) in hooks.cancellables where selecting(entry) {
        entry.isCancelled = true
        picked.append(entry.task)
        hooks.cancellables.removeValue(forKey: id)
      }
      return picked
    }
    for task in tasks { task?.cancel() }
    return tasks.count
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
