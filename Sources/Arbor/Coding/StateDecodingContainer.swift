/// Decodes the state of one model. Generated `init(from:)` initializers call it; the
/// overload chosen for each property decides how a missing or non-`Codable` value is
/// handled.
public struct _StateDecodingContainer {
  @usableFromInline let keyed: KeyedDecodingContainer<_StateCodingKey>
  let decodedModels: DecodedModels?

  public init(_ decoder: any Decoder) throws {
    keyed = try decoder.container(keyedBy: _StateCodingKey.self)
    decodedModels = decoder.userInfo[.arborDecodedModels] as? DecodedModels
  }

  // MARK: `let`s

  /// A `Codable` `let`: required.
  @inlinable
  public func decode<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T {
    try keyed.decode(T.self, forKey: _StateCodingKey(key))
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
    try keyed.decode(T.self, forKey: _StateCodingKey(key))
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
    let codingKey = _StateCodingKey(key)
    guard keyed.contains(codingKey) else { return makeDefault() }
    return try keyed.decode(T.self, forKey: codingKey)
  }

  /// A property that is not `Codable` is not state: it takes its default.
  @inlinable
  public func decode<T>(_ type: T?, forKey key: String, default makeDefault: () -> T) throws -> T {
    makeDefault()
  }

  // MARK: Identity

  /// The context holding the decoded state: a new one with the decoded `id` (or a fresh id
  /// when the model declares its own `id`), or the one already decoded for this id.
  public func context<M: Model>(_ type: M.Type, state: M._$State, decodesID: Bool) throws -> ModelContext<M> {
    guard decodesID else { return ModelContext(state: state, id: .generate(), lifetime: .initial) }
    let id = try keyed.decode(ModelID.self, forKey: .id)
    if let decodedModels, let existing = decodedModels.existing(id) {
      guard let context = existing as? ModelContext<M> else {
        throw DecodingError.dataCorruptedError(
          forKey: .id, in: keyed,
          debugDescription: "model id \(id) is used by both a \(existing.typeName) and a \(M._$typeName)")
      }
      return context
    }
    let context = ModelContext<M>(state: state, id: id, lifetime: .initial)
    decodedModels?.insert(context)
    return context
  }
}
