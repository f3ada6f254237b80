/// Encodes the state of one model. Generated `encode(to:)` methods call it; the overload
/// chosen for each property decides whether it is state.
public struct _StateEncodingContainer {
  @usableFromInline var keyed: KeyedEncodingContainer<_StateCodingKey>

  @inlinable
  public init(_ encoder: any Encoder) {
    keyed = encoder.container(keyedBy: _StateCodingKey.self)
  }

  /// Writes the model's identity under `id`.
  public mutating func encodeID(_ id: ModelID) throws {
    try keyed.encode(id, forKey: .id)
  }

  /// A `Codable` property: part of the state (`nil` is written as `null`).
  @inlinable
  public mutating func encode<T: Encodable>(_ value: T?, forKey key: String) throws {
    if let value {
      try keyed.encode(value, forKey: _StateCodingKey(key))
    } else {
      try keyed.encodeNil(forKey: _StateCodingKey(key))
    }
  }

  /// A property that is not `Codable` is not state. (A restored model takes its default
  /// value; a property without one is rejected at compile time by the decoding side.)
  @inlinable
  public mutating func encode<T>(_ value: T?, forKey key: String) throws {}
}
