import ArborLocking
/// The stream of ``ModelNode/uniquelyReferenced()``.
public struct UniquelyReferenced: AsyncSequence, Sendable {
  public typealias Element = Bool
  let stream: AsyncStream<Bool>

  public func makeAsyncIterator() -> AsyncStream<Bool>.Iterator { stream.makeAsyncIterator() }
}

extension AnyModelContext {
  /// Whether the model has at most one place in its tree (one parent link; the root has
  /// none). Lock held.
  final var isUniquelyReferenced: Bool {
    switch parentLinks {
    case .none, .one: return true
    case .many(let links): return links.count <= 1
    }
  }
}

extension ModelNode {
  /// Whether the model has at most one place in its tree: `true` when it has one owner (or
  /// none yet), `false` while it is shared (held by several parents, or twice by one).
  ///
  /// It participates in observation like a property: read inside `Observed { }`,
  /// `node.memoize { }` or `node.onChange(of:)`, it re-fires when the model becomes
  /// shared or exclusive again, including when another parent holding it is removed.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.onChange(of: node.isUniquelyReferenced, initial: true) { _, isExclusive in
  ///     isEditable = isExclusive
  ///   }
  /// }
  /// ```
  public var isUniquelyReferenced: Bool {
    let context = self.context
    return context.withLock {
      context._trackRead(AnyModelContext.parentsSlot)
      return context.isUniquelyReferenced
    }
  }

  /// `true` while the model has exactly one place in the tree, `false` while it is shared
  /// (held by several parents, or twice by one): the current value first, then each
  /// change, consecutive duplicates removed. Ends when the iterating task is cancelled, or
  /// at once for a model that is not anchored.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.forEach(node.uniquelyReferenced()) { isExclusive in isEditable = isExclusive }
  /// }
  /// ```
  public func uniquelyReferenced() -> UniquelyReferenced {
    let (stream, continuation) = AsyncStream.makeStream(of: Bool.self, bufferingPolicy: .unbounded)
    let context = self.context
    guard let tree = context.tree else {
      continuation.finish()
      return UniquelyReferenced(stream: stream)
    }
    // The listener is added under the same lock as the first reading: no change falls between.
    let last = LockedState(true)
    let listener: ChangeSetListener = tree.lock.withLock {
      let now = context.isUniquelyReferenced
      last.withLock { $0 = now }
      continuation.yield(now)
      return tree.listen(limit: 100_000) { _ in
        // Parent links change only in commits that write a property holding models.
        let now = context.withLock { context.isUniquelyReferenced }
        let changed = last.withLock { last -> Bool in
          defer { last = now }
          return last != now
        }
        if changed { continuation.yield(now) }
      }
    }
    continuation.onTermination = { _ in listener.cancel() }
    return UniquelyReferenced(stream: stream)
  }
}
