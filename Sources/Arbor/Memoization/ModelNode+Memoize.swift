extension ModelNode {
  /// A cached derived value: `compute` runs the first time, and again only after
  /// something it read changed. Reads of the value are observable: an `Observed` of it
  /// wakes when it is invalidated.
  ///
  /// ```swift
  /// var processedData: [ProcessedItem] {
  ///   node.memoize(for: "processedData") { items.map(process) }
  /// }
  /// ```
  ///
  /// `compute` runs on the reading thread, never under the tree's lock.
  public func memoize<T: Sendable>(for key: some Hashable & Sendable, _ compute: @escaping @Sendable () -> T) -> T {
    let entry = memoEntry(for: key)
    if let cached = entry.cached(as: T.self) { return cached }
    return entry.compute(compute, refresh: nil)
  }

  /// A cached derived value of an `Equatable` type: as
  /// ``memoize(for:_:)-(_,_)``, and when a dependency changes while the value is observed,
  /// it is recomputed at once and observers wake only if the result differs.
  ///
  /// ```swift
  /// var normalized: String {
  ///   node.memoize(for: "normalized") { name.lowercased().trimmingCharacters(in: .whitespaces) }
  /// }
  /// ```
  public func memoize<T: Sendable & Equatable>(for key: some Hashable & Sendable, _ compute: @escaping @Sendable () -> T) -> T {
    let entry = memoEntry(for: key)
    if let cached = entry.cached(as: T.self) { return cached }
    return entry.compute(compute) { [weak entry] in
      guard let entry else { return false }
      var changed = false
      _ = entry.compute({
        let value = compute()
        changed = entry.store(value)
        return value
      }, refresh: nil, keepingRefresh: true)
      return changed
    }
  }

  /// The entry for `key`, made on first use; registers the reader's dependency on it.
  private func memoEntry(for key: some Hashable & Sendable) -> MemoEntry {
    let context = self.context
    return context.withLock {
      let hooks = context.ensureHooks
      let entry: MemoEntry
      if let existing = hooks.memos[AnyHashable(key)] {
        entry = existing
      } else {
        entry = MemoEntry(slot: hooks.nextMemoSlot, context: context)
        hooks.nextMemoSlot -= 1
        hooks.memos[AnyHashable(key)] = entry
      }
      context._trackRead(entry.slot)
      return entry
    }
  }
}
