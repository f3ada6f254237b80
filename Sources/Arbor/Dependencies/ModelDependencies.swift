import Dependencies

extension AnyModelContext {
  /// The dependencies in force at this model: the anchor's, changed by every
  /// `withDependencies` between the root and this model, nearest last. A model added later
  /// inherits from where it entered the tree (its first place, for a shared model).
  final func resolvedDependencies() -> DependencyValues {
    withLock { resolvedDependenciesLocked() }
  }

  /// Lock held.
  final func resolvedDependenciesLocked() -> DependencyValues {
    if let cached = hooks?.resolvedDependencies { return cached }
    var overrides: [@Sendable (inout DependencyValues) -> Void] = []
    var chain: [AnyModelContext] = []
    var context: AnyModelContext = self
    var base: DependencyValues?
    var steps = 0
    while true {
      if let cached = context.hooks?.resolvedDependencies {
        base = cached
        break
      }
      if let override = context.hooks?.dependencyOverride {
        overrides.append(override)
        chain.append(context)
      }
      guard let parent = context.parentLinks.first?.parent, steps < 100_000 else { break }
      context = parent
      steps += 1
    }
    var values = base ?? tree?.dependencies ?? DependencyValues._current
    // Apply from the top down and cache at each model that overrides.
    for (override, overriding) in zip(overrides, chain).reversed() {
      override(&values)
      if overriding.lifetime == .anchored { overriding.hooks?.resolvedDependencies = values }
    }
    return values
  }
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
      if let previous = hooks.dependencyOverride {
        hooks.dependencyOverride = { values in
          previous(&values)
          update(&values)
        }
      } else {
        hooks.dependencyOverride = update
      }
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
