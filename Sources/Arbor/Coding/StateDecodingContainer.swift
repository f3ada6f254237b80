import ArborJSON

/// Decodes the state of one model. Generated `init(from:)` initializers call it; the
/// overload chosen for each property decides how a missing or non-`Codable` value is
/// handled.
///
/// From a `JSONValueDecoder` (a daemon's restore, an undo step, `state.set`) it reads the
/// parsed object's members directly; from any other decoder, through a keyed container.
public struct _StateDecodingContainer {
  /// Where the members come from.
  @usableFromInline enum Source {
    case object(_JSONObjectReader)
    case keyed(KeyedDecodingContainer<_StateCodingKey>)
  }

  @usableFromInline let source: Source
  @usableFromInline let decodedModels: DecodedModels?

  public init(_ decoder: any Decoder) throws {
    if let reader = try _JSONObjectReader(decoder) {
      source = .object(reader)
      decodedModels = reader.object(of: DecodedModels.self) { reader.userInfoObject(.arborDecodedModels, as: DecodedModels.self) }
    } else {
      source = .keyed(try decoder.container(keyedBy: _StateCodingKey.self))
      decodedModels = decoder.userInfo[.arborDecodedModels] as? DecodedModels
    }
  }

  /// The member `key`, required.
  @inlinable
  func required<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
    switch source {
    case .object(let reader): return try reader.decode(T.self, forKey: key)
    case .keyed(let keyed): return try keyed.decode(T.self, forKey: _StateCodingKey(key))
    }
  }

  // MARK: `let`s

  /// A `Codable` `let`: required.
  @inlinable
  public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
    try required(T.self, forKey: key)
  }

  /// A `let` that is not `Codable` and has no value of its own cannot be restored.
  @available(
    *, unavailable,
    message: "a model's state must be Codable: this 'let' is not, and has no default value to restore; make its type Codable, give it a value, or mark it @ModelIgnored to keep it out of the state (its model then cannot be restored)"
  )
  public func decode<T>(_ type: T.Type, forKey key: String) throws -> T { fatalError() }

  // MARK: Tracked properties (the first argument only carries the type)

  /// A `Codable` property without a default: required.
  @inlinable
  public func decode<T: Decodable>(_ type: T?, forKey key: String) throws -> T {
    try required(T.self, forKey: key)
  }

  /// A property that is neither `Codable` nor has a default cannot be restored.
  @available(
    *, unavailable,
    message: "a model's state must be Codable: this property is not, and has no default value to restore; make its type Codable, give it a default value, or mark it @ModelIgnored with a default"
  )
  public func decode<T>(_ type: T?, forKey key: String) throws -> T { fatalError() }

  /// A `Codable` property with a default: the default when the key is absent.
  @inlinable
  public func decode<T: Decodable>(_ type: T?, forKey key: String, default makeDefault: () -> T) throws -> T {
    switch source {
    case .object(let reader):
      return try reader.decode(T.self, forKey: key, default: makeDefault)
    case .keyed(let keyed):
      let codingKey = _StateCodingKey(key)
      guard keyed.contains(codingKey) else { return makeDefault() }
      return try keyed.decode(T.self, forKey: codingKey)
    }
  }

  /// A property that is not `Codable` is not state: it takes its default.
  @inlinable
  public func decode<T>(_ type: T?, forKey key: String, default makeDefault: () -> T) throws -> T {
    makeDefault()
  }

  // MARK: Identity

  /// The context holding the decoded state: a new one with the decoded `id` (or a fresh id
  /// when the model declares its own `id`), or the one already decoded for this id.
  ///
  /// Inlinable, so that it is specialized in each model's `init(from:)`: unspecialized, it
  /// looked up `ModelContext<M>`'s metadata for every model decoded.
  @inlinable
  public func context<M: Model>(_ type: M.Type, state: M._$State, decodesID: Bool) throws -> ModelContext<M> {
    guard decodesID else { return ModelContext(state: state, id: .generate(), lifetime: .initial) }
    let id = try decodeID()
    let context = ModelContext<M>(state: state, id: id, lifetime: .initial)
    if let decodedModels, let existing = decodedModels.existing(orInsert: context) {
      guard let existing = existing as? ModelContext<M> else { throw idUsedTwice(id, by: existing, and: M.self) }
      return existing
    }
    return context
  }

  /// The model's `id`: read off the parsed text when it is well formed, decoded (with the
  /// decoder's error) when it is not.
  @usableFromInline
  func decodeID() throws -> ModelID {
    if case .object(let reader) = source, let text = reader.string("id"), let id = ModelID(text) { return id }
    return try required(ModelID.self, forKey: "id")
  }

  @usableFromInline
  func idUsedTwice(_ id: ModelID, by existing: AnyModelContext, and type: any Model.Type) -> DecodingError {
    let codingPath: [any CodingKey]
    switch source {
    case .object(let reader): codingPath = reader.codingPath
    case .keyed(let keyed): codingPath = keyed.codingPath
    }
    return DecodingError.dataCorrupted(
      .init(
        codingPath: codingPath + [_StateCodingKey.id],
        debugDescription: "model id \(id) is used by both a \(existing.typeName) and a \(type._$typeName)"))
  }
}
