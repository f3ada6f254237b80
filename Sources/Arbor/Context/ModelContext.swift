import ArborJSON
/// The context of one model: its typed state plus everything in ``AnyModelContext``.
///
/// Generated accessors call the `_$` methods; user code reaches the context through
/// `node`. Every method takes the tree's lock for the duration of one read or write, never
/// while user observers or hooks run.
public final class ModelContext<M: Model>: AnyModelContext, @unchecked Sendable {  // Sendable: `_state` is guarded by the tree lock (or stripe lock before anchoring)
  // Guarded by the tree lock; Swift's dynamic exclusivity check would be redundant.
  @exclusivity(unchecked) @usableFromInline var _state: M._$State

  /// A fresh context with every property unset; generated initializers fill it in.
  public init() {
    _state = M._$emptyState()
    super.init()
  }

  @usableFromInline
  init(state: M._$State, id: ModelID, lifetime: ModelLifetime) {
    _state = state
    super.init(id: id, lifetime: lifetime)
  }

  override var typeName: String { M._$typeName }
  override var modelType: any Model.Type { M.self }
  override var propertyCount: Int { M._$propertyCount }
  override func propertyName(_ index: Int) -> String { M._$propertyName(index) }

  override func visitChildren(property: Int, into visitor: inout ModelVisitor) {
    M._$visit(_state, property: property, into: &visitor)
  }

  // MARK: Initialization (from init accessors, before the value can escape)

  @inlinable
  public func _$initialize(_ body: (inout M._$State) -> Void) {
    body(&_state)
  }

  // MARK: Reads

  @inlinable
  public func _$get<V>(_ property: Int, _ read: (M._$State) -> V?) -> V {
    let lock = _lockForAccess()
    if _trackReadAnsweredFromHistory(property) { return _historicalGet(property, read, lock) }
    let value = read(_state)
    lock.unlock()
    guard let value else { _missingValue(property) }
    return value
  }

  /// `_$get` when recorded states answer this thread's reads (see ``HistoricalReads``):
  /// the recorded state of this model, or the live one. Lock held; releases it.
  @usableFromInline
  func _historicalGet<V>(_ property: Int, _ read: (M._$State) -> V?, _ lock: Unmanaged<TreeLock>) -> V {
    let recorded = HistoricalReads.current?.states[ObjectIdentifier(self)] as? M._$State
    let value = read(recorded ?? _state)
    lock.unlock()
    guard let value else { _missingValue(property) }
    return value
  }

  /// A copy of the whole state, read under the lock.
  func stateCopy() -> M._$State {
    withLock { _state }
  }

  override func anyStateCopy() -> any Sendable { _state }

  /// A model whose value is one reference (its context) and nothing else has the layout of
  /// that reference: the value is rebuilt from the context. Models with `let`s are larger,
  /// and get nil.
  override func valueOfContextOnlyModel() -> (any Model)? {
    guard valueIsContextOnly else { return nil }
    return unsafeBitCast(self, to: M.self)
  }

  /// Whether `M`'s value is its context reference alone (`@Model` stores the context; any
  /// `let` makes the value larger).
  override var valueIsContextOnly: Bool {
    MemoryLayout<M>.size == MemoryLayout<ModelContext<M>>.size && MemoryLayout<M>.alignment == MemoryLayout<ModelContext<M>>.alignment
  }

  override func replaceAnyState(_ state: any Sendable) {
    if let state = state as? M._$State { _state = state }
  }

  override func undoPart(decoding part: UndoStep.Part, models: DecodedModels) -> (any UndoPart)? {
    decodedUndoPart(part.values, splices: part.splices, models: models)
  }

  override func replayStep(_ operation: JSONPatchOperation, property: Int, pending: JSONValue?, models: DecodedModels) throws(JournalReplayError)
    -> ReplayStep
  {
    try replayed(operation, property: property, pending: pending, models: models)
  }

  /// The state to encode, read under the lock. Generated `encode(to:)` calls it.
  public func _$stateForEncoding() -> M._$State {
    withLock { _state }
  }

  // MARK: Writes by assignment

  @inlinable
  public func _$set<V: Sendable>(_ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void) {
    assign(property, value, write)
  }

  /// Writes `value` without comparing it with the current one.
  @inlinable
  func assign<V: Sendable>(_ property: Int, _ value: V, _ write: (inout M._$State, V) -> Void) {
    var scope = _beginWrite()
    if _canWrite(property, &scope) {
      write(&_state, value)
      _didSet(property, &scope) { value }
    }
    _endWrite(scope)
  }

  /// Skips a write of the current value. In an anchored tree `==` runs under the tree lock,
  /// so that no other write slips between the comparison and the write; before anchoring it
  /// runs with no lock held (see `setDetached`).
  @inlinable
  public func _$set<V: Sendable & Equatable>(_ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void) {
    var scope = _beginWrite()
    guard scope.tree != nil else { return setDetached(property, value, read, write, scope) }
    if _canWrite(property, &scope), read(_state) != value {
      write(&_state, value)
      _didSet(property, &scope) { value }
    }
    _endWrite(scope)
  }

  @inlinable
  public func _$set<V: Sendable & ModelContainer>(_ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void) {
    setContainer(property, value, read, write)
  }

  /// Containers are compared by the identity of the models they hold, not by `==`; this
  /// overload only settles which of the two above applies.
  @inlinable
  public func _$set<V: Sendable & ModelContainer & Equatable>(_ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void) {
    setContainer(property, value, read, write)
  }

  @inlinable
  func setContainer<V: Sendable & ModelContainer>(
    _ property: Int, _ value: V, _ read: (M._$State) -> V?, _ write: (inout M._$State, V) -> Void
  ) {
    var scope = _beginWrite()
    if _canWrite(property, &scope) {
      let before = _shallowBefore(read(_state))
      write(&_state, value)
      _didSetContainer(property, value, old: before, &scope)
    }
    _endWrite(scope)
  }

  // MARK: Writes in place (`_modify`)
  //
  // In an anchored tree the value is moved out, mutated and moved back with the tree lock
  // held throughout: the mutation is atomic, like a transaction. Before anchoring, a copy
  // is mutated with no lock held (see `DetachedWrites.swift`).

  @inlinable
  public func _$beginModify<V>(_ property: Int, _ take: (inout M._$State) -> V?) -> _ModelModify<V> {
    var scope = _beginWrite()
    let writable = _canWrite(property, &scope)
    guard scope.tree != nil else { return beginDetachedModify(property, take, scope, writable: writable, keepOriginal: false) }
    let value = takeForModify(property, take, scope)
    return _ModelModify(value: value, original: writable ? nil : value, scope: scope, writable: writable)
  }

  @inlinable
  public func _$beginModify<V: Equatable>(_ property: Int, _ take: (inout M._$State) -> V?) -> _ModelModify<V> {
    var scope = _beginWrite()
    let writable = _canWrite(property, &scope)
    // The copy is shared with the state anyway, so keeping the original costs nothing.
    guard scope.tree != nil else { return beginDetachedModify(property, take, scope, writable: writable, keepOriginal: true) }
    let value = takeForModify(property, take, scope)
    // Keep the old value to skip no-op writes, but only when copying it is free: holding a
    // second reference to an array would make the in-place mutation copy it.
    let keep = !writable || _isPOD(V.self)
    return _ModelModify(value: value, original: keep ? value : nil, scope: scope, writable: writable)
  }

  /// The value `take` moves out of the state for a write in place; a property without one
  /// ends the write and stops.
  @inlinable
  func takeForModify<V>(_ property: Int, _ take: (inout M._$State) -> V?, _ scope: _WriteScope) -> V {
    guard let value = take(&_state) else {
      _endWrite(scope)
      _missingValue(property)
    }
    return value
  }

  /// A container of models: its value before the mutation is kept, shallowly encoded,
  /// while changes are recorded, so the write is recorded as its smallest edits.
  @inlinable
  public func _$beginModify<V: Sendable & ModelContainer>(_ property: Int, _ take: (inout M._$State) -> V?) -> _ModelModify<V> {
    beginContainerModify(property, take)
  }

  @inlinable
  public func _$beginModify<V: Sendable & ModelContainer & Equatable>(_ property: Int, _ take: (inout M._$State) -> V?) -> _ModelModify<V> {
    beginContainerModify(property, take)
  }

  @inlinable
  func beginContainerModify<V: Sendable & ModelContainer>(_ property: Int, _ take: (inout M._$State) -> V?) -> _ModelModify<V> {
    var scope = _beginWrite()
    let writable = _canWrite(property, &scope)
    guard scope.tree != nil else { return beginDetachedModify(property, take, scope, writable: writable, keepOriginal: false) }
    let value = takeForModify(property, take, scope)
    let before = writable ? _shallowBefore(value) : .none
    return _ModelModify(value: value, original: writable ? nil : value, scope: scope, writable: writable, before: before)
  }

  @inlinable
  public func _$endModify<V: Sendable>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    guard !access.isDetached else { return endDetachedModify(property, &access, write) }
    if access.writable {
      write(&_state, access.value)
      let value = access.value
      _didSet(property, &access.scope) { value }
    } else {
      write(&_state, access.original!)
    }
    _endWrite(access.scope)
  }

  @inlinable
  public func _$endModify<V: Sendable & Equatable>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    guard !access.isDetached else {
      // `==` runs here, with no lock held.
      if let original = access.original, original == access.value { return }
      return endDetachedModify(property, &access, write)
    }
    if !access.writable {
      write(&_state, access.original!)
    } else if let original = access.original, original == access.value {
      write(&_state, access.value)
    } else {
      write(&_state, access.value)
      let value = access.value
      _didSet(property, &access.scope) { value }
    }
    _endWrite(access.scope)
  }

  @inlinable
  public func _$endModify<V: Sendable & ModelContainer>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    endContainerModify(property, &access, write)
  }

  @inlinable
  public func _$endModify<V: Sendable & ModelContainer & Equatable>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    endContainerModify(property, &access, write)
  }

  @inlinable
  func endContainerModify<V: Sendable & ModelContainer>(_ property: Int, _ access: inout _ModelModify<V>, _ write: (inout M._$State, V) -> Void) {
    guard !access.isDetached else { return endDetachedContainerModify(property, &access, write) }
    if access.writable {
      write(&_state, access.value)
      _didSetContainer(property, access.value, old: access.before, &access.scope)
    } else {
      write(&_state, access.original!)
    }
    _endWrite(access.scope)
  }
}

/// An in-place mutation in progress, between `_$beginModify` and `_$endModify`.
///
/// In an anchored tree `scope` holds the tree lock until `_$endModify`; a detached
/// mutation (of a model not anchored yet) holds no lock and its `scope` is already ended.
public struct _ModelModify<V> {
  public var value: V
  @usableFromInline var original: V?
  @usableFromInline var scope: _WriteScope
  @usableFromInline let writable: Bool
  @usableFromInline var before: _ShallowValue
  @usableFromInline let isDetached: Bool

  @inlinable
  init(value: V, original: V?, scope: _WriteScope, writable: Bool, before: _ShallowValue = .none, isDetached: Bool = false) {
    self.value = value
    self.original = original
    self.scope = scope
    self.writable = writable
    self.before = before
    self.isDetached = isDetached
  }
}
