extension ModelAnchor {
  /// Retires the tree: from now on its commits are not delivered to anyone (change sets,
  /// listeners, subscribers), and the commits of a call under way are reported as
  /// discarded (``IntentDispatcher/Outcome/discarded``). Returns the revision of its last
  /// delivered commit. A host that replaces its tree (a restore) retires the old one first,
  /// so that nothing the old tree commits afterwards can take a revision of the new one.
  ///
  /// ```swift
  /// let last = old.retire()
  /// restored.startRevisions(after: last)
  /// ```
  package func retire() -> UInt64 {
    tree.lock.withLock {
      tree.fanOut.retired = true
      return tree.revision
    }
  }

  /// Makes the next commit of a tree nobody has seen yet take revision `revision + 1`.
  package func startRevisions(after revision: UInt64) {
    tree.lock.withLock { tree.revision = revision }
  }
}

extension ModelAnchor {
  /// Runs `body` as the cause `intent` on `target` (what the journal records for its
  /// writes, e.g. `history.undo`) and returns its result with the revision of its own
  /// newest commit: the tree's revision when it committed nothing.
  ///
  /// ```swift
  /// let (_, revision) = anchor.committing(as: "history.undo") { anchor.model.node.undoSystem.undo() }
  /// ```
  package func committing<T>(as intent: String, target: String = "", _ body: () throws -> T) rethrows -> (result: T, revision: UInt64) {
    let trace = CommitTrace()
    let cause = ChangeCause(intent: intent, target: target, trace: trace)
    tree.fanOut.tracingCalls.add(1, ordering: .relaxed)
    defer { tree.fanOut.tracingCalls.subtract(1, ordering: .relaxed) }
    let result = try ChangeCause.$current.withValue(cause) { try body() }
    return (result, trace.close()?.last ?? revision)
  }
}
