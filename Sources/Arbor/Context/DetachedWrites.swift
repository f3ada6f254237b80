/// Writes to a model that is not anchored yet, whose context is guarded by a stripe lock
/// (`StripedLocks`).
///
/// A stripe lock is shared by unrelated models and may be taken while a tree lock is held
/// (to anchor a model), so it must never be held while user code runs: user code may touch
/// an anchored tree, and its lock would then be taken inside the stripe lock, the inverse of
/// the documented order. So before anchoring:
///
/// - an in-place mutation copies the value out under the stripe lock, releases it, lets the
///   caller mutate the copy and writes it back under the lock (taken again). Meanwhile
///   readers see the value as it was before the mutation, and reading the property inside
///   its own mutation is allowed. Mutating a copy costs a copy of a buffer (an array, a
///   string) once per mutation: building a large array one element at a time is cheaper
///   in a local variable, assigned once;
/// - `==` of an `Equatable` value, which skips no-op writes, runs with no lock held.
///
/// Neither is atomic against another thread writing the same property of the same
/// unanchored model: the last write wins. If the model is anchored in between (by another
/// thread), the write-back is a write to the tree like any other: it takes the tree's lock,
/// brings child links up to date and is recorded.
extension ModelContext {
  /// Finishes an Equatable assignment begun under the stripe lock (`scope`): reads the
  /// current value, releases the lock, compares, and writes if the value differs.
  @inlinable
  func setDetached<V: Sendable & Equatable>(
    _ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void, _ scope: _WriteScope
  ) {
    var scope = scope
    guard _canWrite(property, &scope) else { return _endWrite(scope) }
    let current = read(_state)
    _endWrite(scope)
    if current == value { return }
    assign(property, value, write)
  }

  /// Begins an in-place mutation of a copy: `scope` holds the stripe lock, which is released
  /// before the caller's mutation runs.
  @inlinable
  func beginDetachedModify<V>(
    _ property: Int, _ take: (inout M._$State) -> V?, _ scope: _WriteScope, writable: Bool, keepOriginal: Bool
  ) -> _ModelModify<V> {
    var copy = _state
    let value = take(&copy)
    _endWrite(scope)
    guard let value else { _missingValue(property) }
    return _ModelModify(
      value: value, original: keepOriginal ? value : nil, scope: scope, writable: writable, isDetached: true)
  }

  /// Writes the mutated copy back, under the lock the context has now.
  @inlinable
  func endDetachedModify<V: Sendable>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    guard access.writable else { return }
    assign(property, access.value, write)
  }

  /// Writes a mutated container back. Its models are linked (when the model was anchored in
  /// the meantime) from the value written.
  @inlinable
  func endDetachedContainerModify<V: Sendable & ModelContainer>(
    _ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void
  ) {
    guard access.writable else { return }
    var scope = _beginWrite()
    write(&_state, access.value)
    _didSetContainer(property, access.value, old: .none, &scope)
    _endWrite(scope)
  }
}
