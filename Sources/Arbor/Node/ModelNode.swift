/// A model's interface to the runtime: transactions, touches, lifetime, revisions.
///
/// `node` is for a model's own implementation (its methods, `onActivate`, extensions), not
/// for the model's users.
///
/// ```swift
/// func resetTapped() {
///   node.transaction {
///     count = 0
///     history = []
///   }
/// }
/// ```
@dynamicMemberLookup
public struct ModelNode<M: Model>: Sendable {
  let model: M

  /// The model's context. Its context keys (see ``ContextKeys``) read and write as
  /// properties.
  ///
  /// ```swift
  /// node.context.colorScheme = .dark
  /// let scheme = node.context.colorScheme
  /// ```
  public var context: ModelContext<M> { model._$modelContext }

  /// Runs `body` as one transaction: other threads see all of its writes or none, observers
  /// run once, after it commits, and it produces at most one revision.
  ///
  /// Writes are not rolled back if `body` throws. Before the model is anchored the body runs
  /// without a lock.
  @discardableResult
  public func transaction<R>(_ body: () throws -> R) rethrows -> R {
    guard context.tree != nil else { return try body() }
    let scope = context._beginWrite()
    defer { context._endWrite(scope) }
    return try body()
  }

  /// Wakes the observers of `property` as if its value had changed, without changing it.
  /// Use it when a property's contents changed in a way equality cannot see.
  ///
  /// ```swift
  /// node.touch(\.document)
  /// ```
  public func touch(_ property: PartialKeyPath<M>) {
    guard let index = M._$propertyIndex(of: property) else {
      reportUnknownProperty(property)
      return
    }
    context.touch(index)
  }

  /// The stage of the model's life.
  public var lifetime: ModelLifetime { context.withLock { context.lifetime } }

  /// The revision of the model's tree, or nil before it is anchored.
  public var revision: UInt64? {
    guard let tree = context.tree else { return nil }
    return tree.lock.withLock { tree.revision }
  }

  /// The model's path from the root of its tree, or nil when it is not in an anchored tree.
  public var path: ModelPath? {
    context.withLock { context.lifetime == .anchored ? context.pathFromRoot() : nil }
  }

  /// Subscribes to the change sets its tree commits from now on; nil before anchoring.
  /// At most `limit` change sets wait unread (see ``SubscriptionError``).
  public func changeSets(limit: Int = 10_000) -> ChangeSets? {
    context.tree?.subscribe(limit: limit)
  }

  /// Adds work to run when the model is deactivated (removed from its tree, or the tree is
  /// torn down). Runs at once if the model is already destructed.
  ///
  /// ```swift
  /// func onActivate() {
  ///   let connection = Connection.open()
  ///   node.onCancel { connection.close() }
  /// }
  /// ```
  public func onCancel(_ perform: @escaping @Sendable () -> Void) {
    let runNow: Bool = context.withLock {
      guard context.lifetime != .destructed else { return true }
      context.ensureHooks.cancellations.append(perform)
      return false
    }
    if runNow { perform() }
  }

  private func reportUnknownProperty(_ property: PartialKeyPath<M>) {
    reportModelIssue("\(property) is not a tracked property of \(M.self).")
  }
}

extension Model {
  /// The model's interface to the runtime. See ``ModelNode``.
  public var node: ModelNode<Self> { ModelNode(model: self) }

  /// The stage of the model's life.
  public var lifetime: ModelLifetime { node.lifetime }
}
