import ArborJSON

extension AnyModelContext {
  /// Records that a property holding models was written and brings the child links up to date.
  /// Called with the lock held.
  ///
  /// An array of models is reconciled by identity: its common prefix and suffix with the
  /// old children stay, what lies between is removed and inserted. Any other container is
  /// re-walked, and its change recorded as the smallest edits from `old` (its shallow
  /// encoding before the write; nil when nobody records changes).
  @usableFromInline
  final func _didSetContainer(_ property: Int, _ value: any Sendable, old: _ShallowValue, _ scope: inout _WriteScope) {
    defer {
      collectObservers(of: property, into: &scope)
      // Hierarchy queries (`mapHierarchy` in an `Observed`) depend on the set of children.
      collectObservers(of: Self.structureSlot, into: &scope)
    }
    guard let tree = scope.tree, lifetime == .anchored else { return }
    // The children are relinked below (an array's only where it changed): paths found
    // before may lead elsewhere now.
    tree.structureChanged()
    // A write that leaves the container as it was (the same models, the same values) is no
    // change: an intent that changes nothing commits nothing.
    let paths = tree.fanOut.isRecording ? pathsFromRoot() : []
    let table = childTable ?? ChildTable()
    childTable = table
    let slot = table.slot(of: property)

    if let array = value as? any _ModelArray {
      reconcileArray(array, property: property, slot: slot, table: table, tree: tree, paths: paths)
      return
    }
    let oldChildren = table.entries[slot].children
    for child in oldChildren {
      child.parentLinks.removeAll(parent: self, property: property)
      if child.parentLinks.isEmpty { tree.pendingDetached.append(child) }
    }
    var visitor = ModelVisitor()
    visitChildren(property: property, into: &visitor)
    var children = ContiguousArray<AnyModelContext>()
    children.reserveCapacity(visitor.found.count)
    for found in visitor.found {
      if let child = link(found.model, property: property, position: found.position, tree: tree, notifying: false) {
        children.append(child)
      }
    }
    table.entries[slot].children = children
    // A model still held (at the same or another place of the property) kept its parent.
    noteParentChanges(removed: oldChildren, added: children, tree: tree)
    // The smallest edits from the old value, when someone records: none, with the same
    // models, is no change.
    var edits: Result<[JSONPatchOperation], ChangeEncodingError>?
    if !paths.isEmpty, case .success(let before?) = old.json {
      edits = ContainerEdits.edits(from: before, to: value, models: visitor.found)
    }
    if case .success(let operations)? = edits, operations.isEmpty, Self.sameModels(oldChildren, children) { return }
    tree.changedInTransaction = true
    guard !paths.isEmpty else { return }
    let name = propertyName(property)
    switch old.json {
    case .success(_?):
      tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: name, value: value, edits: edits!))
    case .success(nil):
      tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: name, operation: .set(value)))
    case .failure(let error):
      tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: name, value: value, edits: .failure(error)))
    }
  }

  private final func reconcileArray(
    _ array: any _ModelArray, property: Int, slot: Int, table: ChildTable, tree: ModelTree, paths: [ModelPath]
  ) {
    let oldCount = table.entries[slot].children.count
    let newCount = array._$count
    let name = propertyName(property)
    func record(_ operation: Change.Operation) {
      if !paths.isEmpty {
        tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: name, operation: operation))
      }
    }
    // The child list is read in place: a second reference to it would make editing it copy.
    let prefix = array._$commonPrefix(with: table.entries[slot].children)
    if prefix == oldCount && prefix == newCount { return }
    tree.changedInTransaction = true
    let suffix = array._$commonSuffix(with: table.entries[slot].children, limit: min(oldCount, newCount) - prefix)
    let oldMiddle = prefix..<(oldCount - suffix)
    let newMiddle = prefix..<(newCount - suffix)

    // Which elements of the middle stay (possibly at another index): new offset -> old
    // offset; left empty when nothing can be kept (only insertions or only removals), and
    // then read as all nil.
    let diffs = !oldMiddle.isEmpty && !newMiddle.isEmpty
    var keptOld = diffs ? [Int?](repeating: nil, count: newMiddle.count) : []
    var isKept = [Bool](repeating: false, count: oldMiddle.count)
    if diffs {
      let old = oldMiddle.map { ObjectIdentifier(table.entries[slot].children[$0]) }
      let new = newMiddle.map { ObjectIdentifier(array._$context(at: $0)) }
      for (i, j) in IdentityDiff.kept(old, new) ?? [] {
        keptOld[j] = i
        isKept[i] = true
      }
    }
    let shift = newMiddle.count - oldMiddle.count

    // First every link that moves or goes is removed, then the new ones are made, so that a
    // model held at several indices of this array is never confused with itself.
    var removed: [AnyModelContext] = []
    for offset in (0..<oldMiddle.count).reversed() where !isKept[offset] {
      let index = prefix + offset
      let child = table.entries[slot].children[index]
      child.parentLinks.remove(parent: self, property: property, index: index)
      if child.parentLinks.isEmpty { tree.pendingDetached.append(child) }
      removed.append(child)
      record(.remove(index: index))
    }
    var moved: [(AnyModelContext, Int)] = []
    for (newOffset, oldOffset) in keptOld.enumerated() {
      guard let oldOffset, oldOffset != newOffset else { continue }
      let child = table.entries[slot].children[prefix + oldOffset]
      child.parentLinks.remove(parent: self, property: property, index: prefix + oldOffset)
      moved.append((child, prefix + newOffset))
    }
    if shift != 0 {
      for index in (oldCount - suffix)..<oldCount {
        let child = table.entries[slot].children[index]
        child.parentLinks.remove(parent: self, property: property, index: index)
        moved.append((child, index + shift))
      }
    }
    for (child, index) in moved {
      child.parentLinks.append(ParentLink(parent: self, property: property, position: .index(index)))
    }
    var middle = ContiguousArray<AnyModelContext>()
    middle.reserveCapacity(newMiddle.count)
    // Only insertions (an append, say): every model of the new middle is new, and is read
    // back from the list instead of being gathered in a second one.
    let onlyInserted = removed.isEmpty && !diffs
    var added: [AnyModelContext] = []
    // Each new model is queued for activation: room for all of them at once, rather than a
    // doubling list whose outgrown buffers (megabytes, for a large array) the allocator
    // may keep after they are freed.
    let new = newMiddle.count - isKept.lazy.filter { $0 }.count
    if new > 1 {
      if !onlyInserted { added.reserveCapacity(new) }
      tree.pendingActivations.reserveCapacity(tree.pendingActivations.count + new)
    }
    for newOffset in 0..<newMiddle.count {
      if diffs, let oldOffset = keptOld[newOffset] {
        middle.append(table.entries[slot].children[prefix + oldOffset])
        continue
      }
      let index = prefix + newOffset
      let model = array._$model(at: index)
      if let child = link(model, property: property, position: .index(index), tree: tree, notifying: false) {
        middle.append(child)
        if !onlyInserted { added.append(child) }
      }
      record(.insert(index: index, value: model))
    }
    let insertedCount = middle.count
    if oldCount == 0 {
      // The first children: the list built is the list kept, not copied into another.
      table.entries[slot].children = middle
    } else {
      table.entries[slot].children.replaceSubrange(oldMiddle, with: middle)
    }
    // Moves (kept elements at new indices) are not parent changes.
    if onlyInserted {
      noteParentChanges(removed: removed, added: table.entries[slot].children[prefix..<(prefix + insertedCount)], tree: tree)
    } else {
      noteParentChanges(removed: removed, added: added, tree: tree)
    }
  }

  /// Whether two child lists hold the same models in the same order.
  private static func sameModels(_ a: ContiguousArray<AnyModelContext>, _ b: ContiguousArray<AnyModelContext>) -> Bool {
    a.count == b.count && zip(a, b).allSatisfy { $0 === $1 }
  }

  /// Links a child found in `property` and, if it is new to the tree, anchors it and its
  /// subtree (queued for activation, parents first). Returns the child's context, or nil
  /// when the model cannot join this tree.
  ///
  /// With `notifying`, the child's parent change is recorded (see `parentsDidChange`);
  /// callers that relink models they just unlinked pass false and record the net changes.
  @discardableResult
  final func link(
    _ model: any Model, property: Int, position: ChildPosition, tree: ModelTree, notifying: Bool = true
  ) -> AnyModelContext? {
    let child = model._$anyContext
    guard child.canJoin(tree) else { return nil }
    child.parentLinks.append(ParentLink(parent: self, property: property, position: position))
    tree.structureChanged()
    if child.lifetime != .anchored {
      tree.adoptSubtree(model)
    }
    // After the adoption: a model new to the tree is guarded by the tree's lock only once
    // it is published.
    if notifying { child.parentsDidChange(in: tree) }
    return child
  }

  /// Whether this context may be linked into `tree`; if not, says why in the tree's pending
  /// issues, reported once its lock is released. `tree`'s lock held.
  final func canJoin(_ tree: ModelTree) -> Bool {
    if lifetime == .frozenCopy {
      tree.pendingIssues.append("A frozen copy of \(typeName) cannot be added to a tree; add the live model instead.")
      return false
    }
    if let current = self.tree, current !== tree {
      tree.pendingIssues.append("A \(typeName) anchored in one tree cannot be added to another tree.")
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
    structureChanged()
    var stack: [any Model] = [model]
    let first = model._$anyContext
    if first.tree == nil { first.publish(self) }
    first.lifetime = .anchored
    while let current = stack.popLast() {
      let context = current._$anyContext
      pendingActivations.append(current, context: context)
      if !context.isTreeRoot { register(current, context: context) }
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
        table.entries[slot].children.reserveCapacity(visitor.found.count)
        for found in visitor.found {
          let child = found.model._$anyContext
          guard child.canJoin(self) else { continue }
          child.parentLinks.append(ParentLink(parent: context, property: property, position: found.position))
          table.entries[slot].children.append(child)
          if child.lifetime != .anchored {
            if child.tree == nil { child.publish(self) }
            child.lifetime = .anchored
            adopted.append(found.model)
          }
          child.parentsDidChange(in: self)
        }
      }
      stack.append(contentsOf: adopted.reversed())
    }
  }
}
