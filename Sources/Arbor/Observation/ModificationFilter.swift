/// What one ``Model/observeModifications(scope:kinds:where:)`` selects: decides, for each
/// committed batch, whether it modified a model in scope, in a selected kind, of an
/// accepted type.
struct ModificationFilter: Sendable {
  let scope: ModelRelation
  let kinds: ModificationKinds
  let predicate: (@Sendable (any Model.Type) -> Bool)?

  /// Whether `batch` modified something selected around `observed`. Takes the tree's lock
  /// to read the tree's shape; `predicate` (user code) runs after it is released.
  func selects(_ batch: ModificationBatch, around observed: AnyModelContext) -> Bool {
    guard let tree = observed.tree else { return false }
    var types: [any Model.Type] = []
    let found: Bool = tree.lock.withLock {
      guard observed.lifetime == .anchored else { return false }
      var search = Search(filter: self, observed: observed, tree: tree)
      return search.run(batch, types: &types)
    }
    if found { return true }
    guard let predicate else { return false }
    var seen = Set<ObjectIdentifier>()
    return types.contains { seen.insert(ObjectIdentifier($0)).inserted && predicate($0) }
  }

  /// One batch's search, with the tree's lock held.
  private struct Search {
    let filter: ModificationFilter
    let observed: AnyModelContext
    let tree: ModelTree
    /// The observed model's places as path strings, computed on first use.
    var places: [String]?

    init(filter: ModificationFilter, observed: AnyModelContext, tree: ModelTree) {
      self.filter = filter
      self.observed = observed
      self.tree = tree
    }

    /// True when a selected modification was found and no predicate is left to ask;
    /// otherwise false, with the types of the modified models in scope in `types`.
    mutating func run(_ batch: ModificationBatch, types: inout [any Model.Type]) -> Bool {
      let kinds = filter.kinds
      // Nothing to ask: the first modified model in scope settles it.
      func hit(_ type: any Model.Type) -> Bool {
        guard filter.predicate != nil else { return true }
        types.append(type)
        return false
      }
      if kinds.contains(.properties) {
        let excluded = tree.fanOut.excludedFromModifications
        for change in batch.changes {
          if let names = excluded[change.modelID], names.contains(change.property) { continue }
          if let context = context(of: change.modelID) {
            if reaches(context, within: filter.scope), hit(context.modelType) { return true }
          } else if filter.predicate == nil, filter.scope.contains(.descendants), wasBelowObserved(change) {
            // Modified, then removed in the same transaction: judged by where it was.
            return true
          }
        }
      }
      for storage in batch.storage {
        switch storage.kind {
        case .environment: guard kinds.contains(.environment) else { continue }
        case .preference: guard kinds.contains(.preferences) else { continue }
        case .local: continue  // a model's private values are not modifications
        }
        if reaches(storage.context, within: filter.scope), hit(storage.context.modelType) { return true }
      }
      if kinds.contains(.parentRelationship), !batch.parentChanges.isEmpty {
        var unreached: [AnyModelContext] = []
        for context in batch.parentChanges {
          if reaches(context, within: filter.scope) {
            if hit(context.modelType) { return true }
          } else {
            unreached.append(context)
          }
        }
        // A model that lost its place in scope is no longer linked to it; the write that
        // removed it is a change of its former parent's property holding models.
        if !unreached.isEmpty, removedChildFromScope(batch.changes) {
          for context in unreached where hit(context.modelType) { return true }
        }
      }
      return false
    }

    /// The context of the model `id`, if it is still in the tree.
    func context(of id: ModelID) -> AnyModelContext? {
      if id == observed.id { return observed }
      if let context = tree.contextsByID[id] { return context }
      if let root = tree.root, root.id == id { return root }
      return nil
    }

    /// Whether `context` is the observed model or is reached from it by `relation`
    /// (`.self`, `.children`, `.descendants`, `.dependencies`), following every parent
    /// link of a shared model.
    func reaches(_ context: AnyModelContext, within relation: ModelRelation) -> Bool {
      if context === observed { return relation.contains(.self) }
      let children = relation.contains(.children)
      let descendants = relation.contains(.descendants)
      guard children || descendants else { return false }
      let dependencies = relation.contains(.dependencies)
      var frontier = [context]
      var seen: Set<ObjectIdentifier> = [ObjectIdentifier(context)]
      var depth = 0
      while !frontier.isEmpty {
        depth += 1
        var next: [AnyModelContext] = []
        var found = false
        for current in frontier {
          current.parentLinks.forEach { link in
            guard !found, dependencies || link.property != dependencyProperty, let parent = link.parent else { return }
            if parent === observed {
              if descendants || depth == 1 { found = true }
            } else if descendants, seen.insert(ObjectIdentifier(parent)).inserted {
              next.append(parent)
            }
          }
          if found { return true }
        }
        if !descendants || seen.count > 100_000 { return false }  // a cycle of models: not a tree
        frontier = next
      }
      return false
    }

    /// Whether `changes` wrote a property holding models of a model whose children are in
    /// scope (the observed model with `.children` or `.descendants`, or one of its
    /// descendants with `.descendants`).
    func removedChildFromScope(_ changes: [Change]) -> Bool {
      let scope = filter.scope
      guard scope.contains(.children) || scope.contains(.descendants) else { return false }
      for change in changes {
        guard let parent = context(of: change.modelID), let table = parent.childTable,
          table.entries.contains(where: { $0.property >= 0 && parent.propertyName($0.property) == change.property })
        else { continue }
        if parent === observed { return true }
        var below = ModelRelation.descendants
        if scope.contains(.dependencies) { below.insert(.dependencies) }
        if scope.contains(.descendants), reaches(parent, within: below) { return true }
      }
      return false
    }

    /// Whether one of the places `change` was made at lies strictly below a place the
    /// observed model has now.
    mutating func wasBelowObserved(_ change: Change) -> Bool {
      let places = self.places ?? observed.pathsFromRoot().map(\.description)
      self.places = places
      return change.paths.contains { path in
        let changed = path.description
        return places.contains { place in changed != place && changed.hasPrefix(place + "/") }
      }
    }
  }
}
