extension Model {
  /// An immutable copy of the model's current state. Reading it is free of locks and
  /// observation; writing to it is reported as an issue and has no effect.
  ///
  /// Child models inside it are the live children, not copies.
  ///
  /// ```swift
  /// let before = model.frozenCopy
  /// model.count += 1
  /// print(before.count, model.count)   // 0 1
  /// ```
  public var frozenCopy: Self {
    let context = _$modelContext
    let state = context.stateCopy()
    return _$withContext(ModelContext<Self>(state: state, id: context.id, lifetime: .frozenCopy))
  }
}
