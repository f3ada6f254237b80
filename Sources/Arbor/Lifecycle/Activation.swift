extension Model {
  /// Adds a step to run when the model is activated, after `onActivate()` and after the
  /// steps added before it.
  ///
  /// ```swift
  /// let model = EditorModel()
  ///   .withActivation { $0.loadDraft() }
  ///   .withAnchor()
  /// ```
  public func withActivation(_ activation: @escaping @Sendable (Self) -> Void) -> Self {
    let context = _$modelContext
    context.withLock {
      context.ensureHooks.activations.append { model in
        if let model = model as? Self { activation(model) }
      }
    }
    return self
  }
}
