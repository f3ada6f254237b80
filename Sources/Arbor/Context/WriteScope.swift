import IssueReporting

/// One write in progress: the lock it holds and, before anchoring, the observers to wake
/// and the issues to report once the lock is released.
///
/// The references are unowned: a scope lives only inside one method of a context, and the
/// context keeps its tree (and so the tree's lock) alive; stripe locks are never released.
public struct _WriteScope {
  @usableFromInline unowned(unsafe) let lock: TreeLock
  @usableFromInline unowned(unsafe) let tree: ModelTree?
  @usableFromInline var observers: [AccessObserver] = []
  @usableFromInline var issues: [String] = []

  @usableFromInline
  init(lock: TreeLock, tree: ModelTree?) {
    self.lock = lock
    self.tree = tree
  }
}

extension AnyModelContext {
  /// Takes the lock and opens an implicit transaction.
  @usableFromInline
  final func _beginWrite() -> _WriteScope {
    let lock = _lockForAccess()
    guard let tree = unownedTree else {
      return _WriteScope(lock: lock.takeUnretainedValue(), tree: nil)
    }
    return tree._withUnsafeGuaranteedRef { tree in
      tree.depth += 1
      if tree.stateCaptures > 0 { tree.captureStateBefore(self) }
      return _WriteScope(lock: lock.takeUnretainedValue(), tree: tree)
    }
  }

  /// Closes the implicit transaction: the outermost one commits, then the lock is released,
  /// then issues are reported and hooks and observers run.
  @usableFromInline
  final func _endWrite(_ scope: _WriteScope) {
    guard let tree = scope.tree else {
      scope.lock.unlock()
      for issue in scope.issues { reportIssue(issue) }
      for observer in scope.observers { observer.notify() }
      return
    }
    tree.depth -= 1
    guard tree.depth == 0 else {
      scope.lock.unlock()
      return
    }
    let work = tree.commit()
    scope.lock.unlock()
    work?.run()
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
      scope.issues.append(issue)
    }
    return false
  }

  /// Records that `property` now holds a new plain value.
  @usableFromInline
  final func _didSet(_ property: Int, _ scope: inout _WriteScope, _ value: () -> any Sendable) {
    if let tree = scope.tree, lifetime == .anchored {
      tree.changedInTransaction = true
      if tree.isRecording {
        let paths = pathsFromRoot()
        if !paths.isEmpty {
          tree.record(Change(modelID: id, modelType: typeName, paths: paths, property: propertyName(property), operation: .set(value())))
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
    for entry in observers where entry.property == property {
      if let tree = scope.tree {
        tree.pendingObservers.append(entry.observer)
      } else {
        scope.observers.append(entry.observer)
      }
    }
  }

  @usableFromInline
  final func _missingValue(_ property: Int) -> Never {
    fatalError("Arbor: '\(propertyName(property))' of \(typeName) was read before it was initialized, or while it is being mutated in place.")
  }
}
