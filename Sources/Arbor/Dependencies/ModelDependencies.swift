import Dependencies

extension AnyModelContext {
  /// The dependencies in force at this model: the anchor's, changed by every
  /// `withDependencies` between the root and this model, nearest last. A model added later
  /// inherits from where it entered the tree (its first place, for a shared model).
  ///
  /// The overrides are user code, so they run with no lock held: the chain of overrides is
  /// read under the lock, applied outside it, and the results are cached under the lock
  /// again, at each anchored model whose override is still the one applied.
  final func resolvedDependencies() -> DependencyValues {
    let plan = withLock { dependencyPlan() }
    if let cached = plan.cached { return cached }
    var values = plan.base ?? DependencyValues._current
    guard !plan.overrides.isEmpty else { return values }
    var resolved: [(context: AnyModelContext, override: DependencyOverride, values: DependencyValues)] = []
    // From the top down.
    for (context, override) in plan.overrides.reversed() {
      override.apply(&values)
      resolved.append((context, override, values))
    }
    if plan.isAnchored {
      withLock {
        for entry in resolved where entry.context.lifetime == .anchored && entry.context.hooks?.dependencyOverride === entry.override {
          entry.context.hooks?.resolvedDependencies = entry.values
        }
      }
    }
    return values
  }

  /// What resolving this model's dependencies needs: a cached result, or the nearest cached
  /// (or the tree's) values and the overrides between there and this model, nearest first.
  /// Lock held.
  private final func dependencyPlan() -> DependencyPlan {
    if let cached = hooks?.resolvedDependencies { return DependencyPlan(cached: cached) }
    var plan = DependencyPlan(isAnchored: lifetime == .anchored)
    var context: AnyModelContext = self
    var steps = 0
    while true {
      if let cached = context.hooks?.resolvedDependencies {
        plan.base = cached
        return plan
      }
      if let override = context.hooks?.dependencyOverride {
        plan.overrides.append((context, override))
      }
      guard let parent = context.parentLinks.first?.parent, steps < 100_000 else { break }
      context = parent
      steps += 1
    }
    plan.base = tree?.dependencies
    return plan
  }
}

/// See `AnyModelContext.dependencyPlan()`.
private struct DependencyPlan {
  var cached: DependencyValues?
  var base: DependencyValues?
  var overrides: [(AnyModelContext, DependencyOverride)] = []
  var isAnchored = false
}

extension Model {
  /// Overrides dependencies for this model and every model below it. Apply it before the
  /// model joins a tree.
  ///
  /// ```swift
  /// appModel.factPrompt = FactPromptModel(count: 1, fact: "").withDependencies {
  ///   $0.factClient.fetch = { "\($0) is a great number." }
  /// }
  /// ```
  public func withDependencies(_ update: @escaping @Sendable (inout DependencyValues) -> Void) -> Self {
    let context = _$modelContext
    context.withLock {
      let hooks = context.ensureHooks
      hooks.dependencyOverride = hooks.dependencyOverride?.then(update) ?? DependencyOverride(update)
      hooks.resolvedDependencies = nil
    }
    return self
  }
}

extension ModelNode {
  /// The dependency registered under `key`, as seen from this model.
  ///
  /// ```swift
  /// let fact = try await node[FactClient.self].fetch(count)
  /// ```
  ///
  /// A dependency that is itself a model is shared: one instance per tree, activated on
  /// first use and deactivated when the last model using it goes.
  public subscript<Key: TestDependencyKey>(key: Key.Type) -> Key.Value where Key.Value: Sendable {
    hosted(context.resolvedDependencies()[key])
  }

  /// A dependency by its `DependencyValues` property, as seen from this model.
  ///
  /// ```swift
  /// let fact = try await node.factClient.fetch(count)
  /// ```
  public subscript<Value: Sendable>(dynamicMember keyPath: KeyPath<DependencyValues, Value>) -> Value {
    hosted(context.resolvedDependencies()[keyPath: keyPath])
  }

  /// A dependency value as this model sees it: a model is replaced by its tree's instance,
  /// however it was reached (by key type or by key path).
  private func hosted<Value>(_ value: Value) -> Value {
    guard let model = value as? any Model, let instance = context.hostDependencyModel(model) else { return value }
    return instance as! Value
  }

  /// All dependencies as seen from this model.
  public var dependencies: DependencyValues { context.resolvedDependencies() }
}
