extension AnyModelContext {
  /// The pseudo-property that stands for a model's parent links: `node.isUniquelyReferenced`
  /// depends on it, and every place a link to a parent is made or removed wakes its
  /// observers. Memo slots count down from -1, storage slots from `firstStorageSlot`, and
  /// `structureSlot` (the children of a model) is `Int.min`.
  static let parentsSlot = Int.min + 1

  /// Records that this model gained or lost a parent inside the open transaction of `tree`:
  /// the observers of its parents wake once the transaction commits, and modification
  /// taps receive it in the batch's `parentChanges`. A move to another index of the same
  /// parent is not a parent change. Lock held.
  final func parentsDidChange(in tree: ModelTree) {
    collectParentObservers(into: &tree.pendingObservers)
    if tree.fanOut.recordsModifications { tree.fanOut.pendingModifications.append(.parents(self)) }
  }

  /// Adds the observers of this model's parents to `list`. Lock held.
  final func collectParentObservers(into list: inout [AccessObserver]) {
    guard !observers.isEmpty else { return }
    for entry in observers where entry.property == Self.parentsSlot { list.append(entry.observer) }
  }

  /// Records the parent changes of one write of a property holding models: `removed` lost
  /// a link to this model, `added` gained one. A model in both (kept, or moved to another
  /// index) changed only if it is held a different number of times. Lock held.
  final func noteParentChanges(removed: some Collection<AnyModelContext>, added: some Collection<AnyModelContext>, tree: ModelTree) {
    // One side only (an append, a removal): every model on it changed. The commit drops
    // duplicate observers and duplicate parent changes.
    if removed.isEmpty || added.isEmpty {
      for context in removed { context.parentsDidChange(in: tree) }
      for context in added { context.parentsDidChange(in: tree) }
      return
    }
    var delta: [ObjectIdentifier: (context: AnyModelContext, count: Int)] = [:]
    var order: [ObjectIdentifier] = []
    func count(_ context: AnyModelContext, _ change: Int) {
      let key = ObjectIdentifier(context)
      if let existing = delta[key] {
        delta[key] = (context, existing.count + change)
      } else {
        delta[key] = (context, change)
        order.append(key)
      }
    }
    for context in removed { count(context, -1) }
    for context in added { count(context, 1) }
    for key in order {
      guard let entry = delta[key], entry.count != 0 else { continue }
      entry.context.parentsDidChange(in: tree)
    }
  }
}

extension PostCommitWork {
  /// Adds models that lost a parent while the commit destructed removed models to the
  /// batch it delivers to modification taps, if it delivers one (the batch was taken
  /// before the removed models were destructed).
  mutating func addParentChanges(_ contexts: [AnyModelContext]) {
    guard !contexts.isEmpty, let (taps, batch) = modifications else { return }
    var parents = batch.parentChanges
    var seen = Set(parents.map(ObjectIdentifier.init))
    for context in contexts where seen.insert(ObjectIdentifier(context)).inserted { parents.append(context) }
    var extended = batch
    extended.parentChanges = parents
    modifications = (taps, extended)
  }
}
