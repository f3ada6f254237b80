extension AnyModelContext {
  /// The pseudo-property that stands for a model's set of children: a hierarchy query
  /// depends on it for every model whose children it visits, and every write of a property
  /// holding models wakes its observers.
  static let structureSlot = Int.min
}

extension ModelNode {
  /// The models `relation` reaches from this one, each once, nearest first, passed to
  /// `transform`; the non-nil results, in that order.
  ///
  /// ```swift
  /// let app = node.mapHierarchy(for: .ancestors) { $0 as? AppModel }.first
  /// let counters = node.mapHierarchy(for: [.self, .descendants]) { $0 as? CounterModel }
  /// ```
  ///
  /// Inside an `Observed`, the result is re-evaluated when a property `transform` read
  /// changes on any visited model, and when a model joins or leaves the visited part of
  /// the tree below this one:
  ///
  /// ```swift
  /// node.forEach(Observed { node.mapHierarchy(for: [.self, .descendants]) { ($0 as? EditorModel)?.isDirty } }) { flags in
  ///   hasUnsavedChanges = flags.contains(true)
  /// }
  /// ```
  ///
  /// Models used as dependencies are visited only with `.dependencies`. `transform` runs
  /// outside the tree's lock.
  public func mapHierarchy<T>(for relation: ModelRelation, transform: (any Model) throws -> T?) rethrows -> [T] {
    try reduceHierarchy(for: relation, transform: transform, into: []) { $0.append($1) }
  }

  /// Folds the models `relation` reaches (see ``mapHierarchy(for:transform:)``) into a
  /// result: `transform` picks a value from each, `update` adds each non-nil one.
  ///
  /// ```swift
  /// let total = node.reduceHierarchy(for: [.self, .descendants], transform: { ($0 as? CounterModel)?.count }, into: 0) { $0 += $1 }
  /// ```
  public func reduceHierarchy<Result, Element>(
    for relation: ModelRelation, transform: (any Model) throws -> Element?, into initial: Result,
    _ update: (inout Result, Element) throws -> Void
  ) rethrows -> Result {
    var result = initial
    for model in visitedModels(relation) {
      if let element = try transform(model) { try update(&result, element) }
    }
    return result
  }

  /// The model values `relation` reaches, taken under the lock; registers the reader's
  /// dependency on the children of every model whose children are visited.
  private func visitedModels(_ relation: ModelRelation) -> [any Model] {
    let context = self.context
    let model = self.model
    return context.withLock {
      let contexts = context.contexts(in: relation)
      let tree = context.tree
      if relation.contains(.children) || relation.contains(.descendants) {
        context._trackRead(AnyModelContext.structureSlot)
        if relation.contains(.descendants) {
          for visited in contexts where visited !== context { visited._trackRead(AnyModelContext.structureSlot) }
        }
      }
      return contexts.compactMap { visited -> (any Model)? in
        if visited === context { return model }
        if let tree {
          if let found = tree.model(withID: visited.id) ?? tree.dependencyModels[visited.id] { return found }
          if visited === tree.root { return tree.rootModel?(visited) }
        }
        return nil
      }
    }
  }
}
