import IssueReporting

/// One write in progress: the lock it holds and, before anchoring, the observers to wake
/// and the issues to report once the lock is released.
///
/// The references are unowned: a scope lives only inside one method of a context, and the
/// context keeps its tree (and so the tree's lock) alive; stripe locks are never released.
/// A write in a tree keeps what it wakes in the tree, so its scope holds no reference
/// that needs counting but `effects`, which only a write before anchoring creates.
public struct _WriteScope {
  /// The lock, unretained: releasing it through `Unmanaged` counts no reference (an
  /// `unowned(unsafe)` reference is made strong for each call on it).
  @usableFromInline let lock: Unmanaged<TreeLock>
  /// The tree, unretained: a write's hot path reaches it without counting a reference.
  @usableFromInline let treeReference: Unmanaged<ModelTree>?
  @usableFromInline var tree: ModelTree? { treeReference?.takeUnretainedValue() }
  /// Before anchoring, what to do once the lock is released; nil until there is any.
  @usableFromInline var effects: DetachedWriteEffects?

  @usableFromInline
  init(lock: Unmanaged<TreeLock>, tree: Unmanaged<ModelTree>?) {
    self.lock = lock
    self.treeReference = tree
  }

  /// The effects of a write before anchoring, created on first use.
  mutating func detachedEffects() -> DetachedWriteEffects {
    if let effects { return effects }
    let created = DetachedWriteEffects()
    effects = created
    return created
  }
}

/// What a write to a model not yet in a tree does once its stripe lock is released: wake
/// observers, report issues.
@usableFromInline
final class DetachedWriteEffects {
  var observers: [AccessObserver] = []
  var issues: [String] = []
}

extension AnyModelContext {
  /// Takes the lock and opens an implicit transaction.
  @usableFromInline
  final func _beginWrite() -> _WriteScope {
    let lock = _lockForAccess()
    guard let tree = unownedTree else {
      return _WriteScope(lock: lock, tree: nil)
    }
    tree._withUnsafeGuaranteedRef { tree in
      tree.depth += 1
      if tree.fanOut.stateCaptures > 0 { tree.fanOut.captureStateBefore(self) }
    }
    return _WriteScope(lock: lock, tree: tree)
  }

  /// Closes the implicit transaction: the outermost one commits, then the lock is released,
  /// then issues are reported and hooks and observers run.
  @usableFromInline
  final func _endWrite(_ scope: _WriteScope) {
    guard let tree = scope.treeReference else {
      scope.lock.unlock()
      guard let effects = scope.effects else { return }
      for issue in effects.issues { reportIssue(issue) }
      for observer in effects.observers { observer.notify() }
      return
    }
    let quiet = tree._withUnsafeGuaranteedRef { tree -> ModelTree.QuietCommit in
      tree.depth -= 1
      return tree.depth > 0 ? .done : tree.commitQuietly()
    }
    switch quiet {
    case .done:
      scope.lock.unlock()
    case .doneNotifying(let observers):
      scope.lock.unlock()
      for observer in observers { observer.notify() }
    case .notDone:
      let work = tree._withUnsafeGuaranteedRef { $0.commit() }
      scope.lock.unlock()
      work?.run()
    }
  }

  /// False for a frozen copy, whose writes are dropped and reported once `scope` has
  /// released its lock. Lock held.
  @usableFromInline
  final func _canWrite(_ property: Int, _ scope: inout _WriteScope) -> Bool {
    guard lifetime == .frozenCopy else { return true }
    let issue = "Writing '\(propertyName(property))' of a frozen copy of \(typeName) has no effect: a frozen copy is immutable."
    if let tree = scope.tree {
      tree.pendingIssues.append(issue)
    } else {
      scope.detachedEffects().issues.append(issue)
    }
    return false
  }

  /// Records that `property` now holds a new plain value.
  @usableFromInline
  final func _didSet(_ property: Int, _ scope: inout _WriteScope, _ value: () -> any Sendable) {
    if let tree = scope.treeReference, lifetime == .anchored {
      tree._withUnsafeGuaranteedRef { tree in
        tree.changedInTransaction = true
        if tree.fanOut.isRecording {
          let paths = pathsFromRoot()
          if !paths.isEmpty {
            tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: propertyName(property), operation: .set(value())))
          }
        }
      }
    }
    collectObservers(of: property, into: &scope)
  }

  /// Records a touch: observers of `property` wake, the revision does not move.
  final func touch(_ property: Int) {
    var scope = _beginWrite()
    for entry in observers where entry.property == property { entry.observer.markTouched() }
    collectObservers(of: property, into: &scope)
    _endWrite(scope)
  }

  final func collectObservers(of property: Int, into scope: inout _WriteScope) {
    guard !observers.isEmpty else { return }
    // By index: the list's buffer and its observers are read without counting references
    // (the consumer's thread registers and unregisters in this list at each evaluation).
    for index in observers.indices where observers[index].property == property {
      // Dirty already: the change has nobody to wake (see `AccessObserver.absorbsChange`),
      // so it neither counts a reference to the observer nor fills a list.
      if observers[index].observer.absorbsChange { continue }
      if let tree = scope.tree {
        tree.pendingObservers.append(observers[index].observer)
      } else {
        scope.detachedEffects().observers.append(observers[index].observer)
      }
    }
  }

  @usableFromInline
  final func _missingValue(_ property: Int) -> Never {
    fatalError("Arbor: '\(propertyName(property))' of \(typeName) was read before it was initialized, or while it is being mutated in place.")
  }
}
