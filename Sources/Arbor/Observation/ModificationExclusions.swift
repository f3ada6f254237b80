extension ModelNode {
  /// Keeps writes to `properties` of this model from triggering
  /// ``Model/observeModifications(scope:kinds:where:)`` and
  /// ``Model/observeAnyModification()`` — for volatile state such as a scroll position or a
  /// cache, which should not mark a document as edited. Observers of the properties
  /// themselves (`Observed`, `onChange`) are unaffected.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.excludeFromModifications(\.scrollPosition, \.searchCache)
  /// }
  /// ```
  ///
  /// The exclusion lasts while the model is anchored; call it from `onActivate()`. Models
  /// added to or removed from an excluded property still count as parent-relationship
  /// modifications.
  public func excludeFromModifications(_ properties: PartialKeyPath<M>...) {
    var names: Set<String> = []
    for property in properties {
      guard let index = M._$propertyIndex(of: property) else {
        reportModelIssue("\(property) is not a tracked property of \(M.self).")
        continue
      }
      names.insert(M._$propertyName(index))
    }
    guard !names.isEmpty else { return }
    let context = self.context
    guard let tree = context.tree else {
      reportModelIssue("excludeFromModifications has no effect on \(M.self): it is not anchored. Call it from onActivate().")
      return
    }
    tree.lock.withLock {
      guard context.lifetime == .anchored else { return }
      tree.fanOut.excludedFromModifications[context.id, default: []].formUnion(names)
    }
  }
}

extension AnyModelContext {
  /// `changeSet` without the writes of properties excluded with
  /// `node.excludeFromModifications`; nil when nothing is left. Takes the lock.
  final func withoutExcludedChanges(_ changeSet: ChangeSet) -> ChangeSet? {
    guard let tree else { return changeSet }
    let excluded = tree.lock.withLock { tree.fanOut.excludedFromModifications }
    guard !excluded.isEmpty else { return changeSet }
    let kept = changeSet.changes.filter { !(excluded[$0.modelID]?.contains($0.property) ?? false) }
    if kept.count == changeSet.changes.count { return changeSet }
    return kept.isEmpty ? nil : ChangeSet(revision: changeSet.revision, changes: kept, cause: changeSet.cause)
  }
}
