import Dependencies

extension Model {
  /// Anchors this model as the root of a new tree and activates it; returns the model.
  ///
  /// The tree lives as long as the root model is referenced.
  ///
  /// ```swift
  /// let model = AppModel().withAnchor()
  /// let tested = AppModel().withAnchor { $0.date.now = Date(timeIntervalSince1970: 0) }
  /// ```
  ///
  /// - Parameter dependencies: overrides applied to the dependencies of every model in the tree.
  @discardableResult
  public func withAnchor(_ dependencies: (inout DependencyValues) -> Void = { _ in }) -> Self {
    let tree = ModelTree.anchor(self, dependencies: dependencies)
    AnchoringObservation.observer?.didAnchor(ModelAnchor(model: self, tree: tree))
    return self
  }

  /// Anchors this model as the root of a new tree; returns the model and the anchor that
  /// owns the tree. Releasing the anchor tears the tree down: every model is deactivated
  /// (its work cancelled) and destructed.
  ///
  /// ```swift
  /// let (model, anchor) = AppModel().andAnchor()
  /// for await changeSet in anchor.changeSets() { … }
  /// ```
  public func andAnchor(_ dependencies: (inout DependencyValues) -> Void = { _ in }) -> (Self, ModelAnchor<Self>) {
    let tree = ModelTree.anchor(self, dependencies: dependencies)
    let anchor = ModelAnchor(model: self, tree: tree)
    AnchoringObservation.observer?.didAnchor(anchor)
    return (self, anchor)
  }

  /// SwiftModel 1.0's name of ``andAnchor(_:)``: anchors this model as the root of a new
  /// tree and returns the model and the anchor that owns the tree.
  ///
  /// ```swift
  /// let (model, anchor) = AppModel().returningAnchor()
  /// ```
  public func returningAnchor(_ dependencies: (inout DependencyValues) -> Void = { _ in }) -> (Self, ModelAnchor<Self>) {
    andAnchor(dependencies)
  }
}

/// Owns an anchored tree. Keep it for as long as the tree should live.
///
/// ```swift
/// let (model, anchor) = CounterModel().andAnchor()
/// model.count += 1
/// print(anchor.revision)   // 1
/// ```
public final class ModelAnchor<Root: Model>: Sendable {
  /// The root model.
  public let model: Root
  let tree: ModelTree

  init(model: Root, tree: ModelTree) {
    self.model = model
    self.tree = tree
  }

  /// The revision of the last committed transaction that changed state.
  public var revision: UInt64 { tree.lock.withLock { tree.revision } }

  /// Subscribes to the change sets committed from now on. At most `limit` change sets wait
  /// unread; a consumer that falls further behind gets ``SubscriptionError/overflow(limit:)``.
  ///
  /// ```swift
  /// for try await changeSet in anchor.changeSets() { print(changeSet.patch) }
  /// ```
  public func changeSets(limit: Int = 10_000) -> ChangeSets { tree.subscribe(limit: limit) }

  /// Calls `body` with every change set committed from now on, in revision order and one
  /// call at a time, on the thread that committed it (or on one committing at the same
  /// time), right after the tree's lock is released: no task and no thread hop. For code
  /// that must follow every revision with the least delay, such as a server's watch hub;
  /// `body` must be short and must not wait. When more than `limit` change sets are waiting
  /// for a call, the listener gets ``ChangeSetDelivery/overflowed`` once and nothing after.
  ///
  /// The calls go on while the returned listener is kept and not cancelled.
  ///
  /// ```swift
  /// let listener = anchor.listen { delivery in
  ///   switch delivery {
  ///   case .committed(let changeSet): apply(changeSet.patch)
  ///   case .overflowed: reread()
  ///   }
  /// }
  /// ```
  public func listen(limit: Int = 100_000, _ body: @escaping @Sendable (ChangeSetDelivery) -> Void) -> ChangeSetListener {
    tree.listen(limit: limit, body)
  }

  deinit {
    tree.tearDown()
  }
}

extension ModelTree {
  /// Creates a tree with `model` as its root, anchors the model's subtree and activates it
  /// (or, `activating` false, holds its activation until ``ModelAnchor/activate()``).
  static func anchor<M: Model>(
    _ model: M, revision: UInt64 = 0, activating: Bool = true, dependencies: (inout DependencyValues) -> Void
  ) -> ModelTree {
    var values = DependencyValues._current
    dependencies(&values)
    let tree = ModelTree(revision: revision, dependencies: values)
    let context = model._$modelContext
    let work: PostCommitWork = tree.lock.withLock {
      // Misuse is reported once the lock is released, like every issue found under it.
      guard context.canJoin(tree), context.tree == nil else {
        tree.pendingIssues.append("\(M.self) is already anchored; a model can be the root of one tree only.")
        return tree.takePendingIssues()
      }
      guard context.lifetime == .initial else {
        tree.pendingIssues.append("\(M.self) cannot be anchored: it is \(context.lifetime).")
        return tree.takePendingIssues()
      }
      tree.root = context
      let template = model._$withContext(ModelContext<M>())
      tree.rootModel = { context in (context as? ModelContext<M>).map { template._$withContext($0) } }
      context.isTreeRoot = true
      tree.depth = 1
      tree.adoptSubtree(model)
      tree.depth = 0
      if !activating { tree.pendingActivations.hold() }
      return tree.commit() ?? PostCommitWork()
    }
    work.run()
    return tree
  }

  /// Tears the tree down when its root context is being released (the root model of a
  /// `withAnchor()` tree is no longer referenced): its children lose their link to it and
  /// are deactivated and destructed, parents first, and the subscriptions end. The root
  /// itself cannot be handed to deactivation (it is being destroyed); its own work holds
  /// the root, so by now it has none left.
  func tearDown(afterRootWentAway root: AnyModelContext) {
    let work: PostCommitWork = lock.withLock {
      var work = PostCommitWork()
      pendingActivations.removeAll()
      guard root.lifetime == .anchored, let table = root.childTable else { return work }
      root.lifetime = .destructed
      root.childTable = nil
      structureChanged()
      for entry in table.entries {
        for child in entry.children {
          if child.parentLinks.removeOrphaned() > 0 { child.collectParentObservers(into: &work.observers) }
          if child.parentLinks.isEmpty && child.lifetime == .anchored { destruct(child, into: &work) }
        }
      }
      return work
    }
    work.run()
    fanOut.finishSubscribers()
  }

  /// Deactivates and destructs every model of the tree, parents first, and ends the
  /// change-set subscriptions.
  func tearDown() {
    let work: PostCommitWork = lock.withLock {
      var work = PostCommitWork()
      if let root, root.lifetime == .anchored {
        destruct(root, into: &work)
      }
      pendingActivations.removeAll()
      return work
    }
    work.run()
    fanOut.finishSubscribers()
  }
}
