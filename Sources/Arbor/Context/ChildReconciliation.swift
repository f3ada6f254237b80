import IssueReporting

extension AnyModelContext {
  /// Records that a property holding models was written and brings the child links up to date.
  /// Called with the lock held.
  ///
  /// An array of models that grew at its end, or shrank from its end, is reconciled in time
  /// proportional to the change. Any other write is reconciled by one pass over the new value.
  @usableFromInline
  final func _didSetContainer(_ property: Int, _ value: any Sendable, _ scope: inout _WriteScope) {
    defer { collectObservers(of: property, into: &scope) }
    guard let tree = scope.tree, lifetime == .anchored else { return }
    tree.changedInTransaction = true
    let basePath = tree.isRecording ? pathFromRoot(inState: true) : nil
    let table = childTable ?? ChildTable()
    childTable = table
    let slot = table.slot(of: property)

    if let array = value as? any _ModelArray {
      reconcileArray(array, property: property, slot: slot, table: table, tree: tree, basePath: basePath)
    } else {
      let old = table.entries[slot].children
      for child in old {
        child.parentLinks.removeAll(parent: self, property: property)
        if child.parentLinks.isEmpty { tree.pendingDetached.append(child) }
      }
      var visitor = ModelVisitor()
      visitChildren(property: property, into: &visitor)
      var children = ContiguousArray<AnyModelContext>()
      children.reserveCapacity(visitor.found.count)
      for found in visitor.found {
        if let child = link(found.model, property: property, position: ChildPosition(found.components), tree: tree) {
          children.append(child)
        }
      }
      table.entries[slot].children = children
      if let basePath {
        tree.record(Change(modelID: id, modelType: typeName, path: basePath, property: propertyName(property), operation: .set(value)))
      }
    }
  }

  private final func reconcileArray(
    _ array: any _ModelArray, property: Int, slot: Int, table: ChildTable, tree: ModelTree, basePath: ModelPath?
  ) {
    let oldCount = table.entries[slot].children.count
    let newCount = array._$count
    let name = propertyName(property)
    func record(_ operation: Change.Operation) {
      if let basePath {
        tree.record(Change(modelID: id, modelType: typeName, path: basePath, property: name, operation: operation))
      }
    }
    // The child list is read in place: a second reference to it would make appending to it copy.
    func same(_ index: Int) -> Bool { table.entries[slot].children[index] === array._$context(at: index) }
    // Whether the first `count` elements still stand where they were: every one of them for
    // a short array, the first, middle and last for a long one (keeping appends O(1)).
    func prefixUnchanged(_ count: Int) -> Bool {
      if count == 0 { return true }
      if count <= 256 { return (0..<count).allSatisfy(same) }
      return same(0) && same(count - 1) && same(count / 2)
    }

    // Appended at the end: the old elements still stand where they were.
    if newCount > oldCount, prefixUnchanged(oldCount) {
      var fresh = true
      for index in oldCount..<newCount where array._$context(at: index).parentLinks.contains(parent: self, property: property) {
        fresh = false
        break
      }
      if fresh {
        for index in oldCount..<newCount {
          let model = array._$model(at: index)
          if let child = link(model, property: property, position: .index(index), tree: tree) {
            table.entries[slot].children.append(child)
          }
          record(.insert(index: index, value: model))
        }
        return
      }
    }

    // Removed from the end.
    if newCount < oldCount, prefixUnchanged(newCount) {
      for index in (newCount..<oldCount).reversed() {
        let child = table.entries[slot].children.removeLast()
        child.parentLinks.remove(parent: self, property: property, index: index)
        if child.parentLinks.isEmpty { tree.pendingDetached.append(child) }
        record(.remove(index: index))
      }
      return
    }

    let old = table.entries[slot].children
    // Anything else: trim the common prefix and suffix; what lies between was replaced.
    var prefix = 0
    while prefix < oldCount, prefix < newCount, old[prefix] === array._$context(at: prefix) { prefix += 1 }
    var suffix = 0
    while suffix < oldCount - prefix, suffix < newCount - prefix,
      old[oldCount - 1 - suffix] === array._$context(at: newCount - 1 - suffix)
    {
      suffix += 1
    }
    let removed = prefix..<(oldCount - suffix)
    let inserted = prefix..<(newCount - suffix)
    for index in removed.reversed() {
      let child = old[index]
      child.parentLinks.remove(parent: self, property: property, index: index)
      if child.parentLinks.isEmpty { tree.pendingDetached.append(child) }
      record(.remove(index: index))
    }
    var children = ContiguousArray<AnyModelContext>()
    children.reserveCapacity(newCount)
    children.append(contentsOf: old[0..<prefix])
    for index in inserted {
      let model = array._$model(at: index)
      if let child = link(model, property: property, position: .index(index), tree: tree) {
        children.append(child)
      }
      record(.insert(index: index, value: model))
    }
    let shift = newCount - oldCount
    for offset in 0..<suffix {
      let oldIndex = oldCount - suffix + offset
      let child = old[oldIndex]
      if shift != 0 {
        child.parentLinks.remove(parent: self, property: property, index: oldIndex)
        child.parentLinks.append(ParentLink(parent: self, property: property, position: .index(oldIndex + shift)))
      }
      children.append(child)
    }
    table.entries[slot].children = children
  }

  /// Links a child found in `property` and, if it is new to the tree, anchors it and its
  /// subtree (queued for activation, parents first). Returns the child's context, or nil
  /// when the model cannot join this tree.
  @discardableResult
  final func link(_ model: any Model, property: Int, position: ChildPosition, tree: ModelTree) -> AnyModelContext? {
    let child = model._$anyContext
    guard child.canJoin(tree) else { return nil }
    child.parentLinks.append(ParentLink(parent: self, property: property, position: position))
    if child.lifetime != .anchored {
      tree.adoptSubtree(model)
    }
    return child
  }

  /// Whether this context may be linked into `tree`; reports why not.
  final func canJoin(_ tree: ModelTree) -> Bool {
    if lifetime == .frozenCopy {
      reportIssue("A frozen copy of \(typeName) cannot be added to a tree; add the live model instead.")
      return false
    }
    if let current = self.tree, current !== tree {
      reportIssue("A \(typeName) anchored in one tree cannot be added to another tree.")
      return false
    }
    return true
  }

  /// Publishes `tree` as this context's tree, under its stripe lock.
  final func publish(_ tree: ModelTree) {
    let stripe = StripedLocks.lock(for: self)
    stripe.withLock { storeTreeIfNil(tree) }
  }
}

extension ModelTree {
  /// Anchors `model` and every model below it that is not anchored yet. Lock held.
  func adoptSubtree(_ model: any Model) {
    var stack: [any Model] = [model]
    let first = model._$anyContext
    if first.tree == nil { first.publish(self) }
    first.lifetime = .anchored
    while let current = stack.popLast() {
      let context = current._$anyContext
      pendingActivations.append(current)
      var adopted: [any Model] = []
      let propertyCount = context.propertyCount
      for property in 0..<propertyCount {
        var visitor = ModelVisitor()
        context.visitChildren(property: property, into: &visitor)
        guard !visitor.found.isEmpty else { continue }
        let table = context.childTable ?? ChildTable()
        context.childTable = table
        let slot = table.slot(of: property)
        table.entries[slot].children = []
        for found in visitor.found {
          let child = found.model._$anyContext
          guard child.canJoin(self) else { continue }
          child.parentLinks.append(ParentLink(parent: context, property: property, position: ChildPosition(found.components)))
          table.entries[slot].children.append(child)
          if child.lifetime != .anchored {
            if child.tree == nil { child.publish(self) }
            child.lifetime = .anchored
            adopted.append(found.model)
          }
        }
      }
      stack.append(contentsOf: adopted.reversed())
    }
  }
}
