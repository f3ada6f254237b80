/// Reads the members of the object a ``JSONValueDecoder`` is decoding, by name, without a
/// `KeyedDecodingContainer`.
///
/// A model's generated `init(from:)` reads its state through this when the decoder is a
/// `JSONValueDecoder`'s (a daemon's restore, an undo step, `state.set`): making a keyed
/// container allocates its box and calls each member through it, which cost about a fifth
/// of a restored model. Any other decoder gets nil and is read through its containers.
/// The errors and their coding paths are the keyed container's.
///
/// ```swift
/// struct Point: Decodable {
///   enum CodingKeys: CodingKey { case x }
///   var x: Int
///   init(from decoder: any Decoder) throws {
///     if let reader = try _JSONObjectReader(decoder) {
///       x = try reader.decode(Int.self, forKey: "x")
///     } else {
///       x = try decoder.container(keyedBy: CodingKeys.self).decode(Int.self, forKey: .x)
///     }
///   }
/// }
/// ```
public struct _JSONObjectReader {
  let decoder: _JSONValueDecoderImpl
  let members: [String: JSONValue]
  let depth: Int

  /// The reader of `decoder`'s object, or nil when `decoder` is not a `JSONValueDecoder`'s;
  /// throws, as `container(keyedBy:)` does, when the value is not an object.
  @inline(__always)
  public init?<D: Decoder>(_ decoder: D) throws {
    // A comparison of type metadata: `as?` on the existential costs a dynamic cast.
    guard D.self == _JSONValueDecoderImpl.self else { return nil }
    let impl = withUnsafePointer(to: decoder) { $0.withMemoryRebound(to: _JSONValueDecoderImpl.self, capacity: 1) { $0.pointee } }
    self.decoder = impl
    self.members = try _JSONUnwrap.members(impl.value, at: { impl.path.keys })
    self.depth = impl.path.keys.count
  }

  /// The path of the object being read.
  public var codingPath: [any CodingKey] { decoder.path.path(depth: depth, extra: []) }

  /// The member named `name` decoded as a `T`; `keyNotFound` when there is none.
  public func decode<T: Decodable>(_ type: T.Type, forKey name: String) throws -> T {
    guard let member = members.member(name) else {
      throw DecodingError.keyNotFound(
        _JSONKey.string(name),
        .init(
          codingPath: codingPath,
          debugDescription: "No value associated with key \(name) (\"\(name)\")."))
    }
    return try decoder.decode(T.self, from: member, depth: depth, extra: [], key: _JSONKey.string(name))
  }

  /// The member named `name` decoded as a `T`, or `makeDefault()` when there is none.
  public func decode<T: Decodable>(_ type: T.Type, forKey name: String, default makeDefault: () -> T) throws -> T {
    guard let member = members.member(name) else { return makeDefault() }
    return try decoder.decode(T.self, from: member, depth: depth, extra: [], key: _JSONKey.string(name))
  }

  /// The member named `name` when it is a string, without decoding; nil otherwise.
  public func string(_ name: String) -> String? {
    guard case .string(let string)? = members.member(name) else { return nil }
    return string
  }

  /// The decoder's `userInfo` value for `key`, if it is a `T`.
  public func userInfoObject<T: AnyObject>(_ key: CodingUserInfoKey, as type: T.Type) -> T? {
    decoder.sendableUserInfo[key] as? T
  }

  /// The `T` that `make` returns, worked out once per decode: every later reader of the
  /// same `decode` call gets it without calling `make`. A restore's models all need the
  /// same table of the models decoded so far, and a `userInfo` look-up for each took a
  /// twentieth of its decoding.
  ///
  /// ```swift
  /// let catalog = reader.object(of: Catalog.self) { reader.userInfoObject(.catalog, as: Catalog.self) }
  /// ```
  public func object<T: AnyObject>(of type: T.Type, _ make: () -> T?) -> T? {
    let identifier = ObjectIdentifier(T.self)
    if let kept = decoder.kept, kept.type == identifier { return kept.object.map { unsafeDowncast($0, to: T.self) } }
    let object = make()
    decoder.kept = (identifier, object)
    return object
  }
}
