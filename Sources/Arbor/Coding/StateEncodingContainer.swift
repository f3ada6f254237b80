import ArborJSON

/// Encodes the state of one model. Generated `encode(to:)` methods call it; the overload
/// chosen for each property decides whether it is state.
///
/// Into a `JSONValueEncoder` (snapshots, `state.get`, a watch's first reply) it writes the
/// object's members directly; into any other encoder, through a keyed container.
public struct _StateEncodingContainer {
  /// Where the members go.
  @usableFromInline enum Destination {
    case object(_JSONObjectWriter)
    case keyed(KeyedEncodingContainer<_StateCodingKey>)
  }

  @usableFromInline var destination: Destination

  public init(_ encoder: any Encoder) {
    if let writer = _JSONObjectWriter(encoder) {
      destination = .object(writer)
    } else {
      destination = .keyed(encoder.container(keyedBy: _StateCodingKey.self))
    }
  }

  /// Writes the model's identity under `id`.
  public mutating func encodeID(_ id: ModelID) throws {
    switch destination {
    case .object(let writer): writer.encode(id.description, forKey: "id")
    case .keyed(var keyed):
      try keyed.encode(id, forKey: .id)
      destination = .keyed(keyed)
    }
  }

  /// A `Codable` property: part of the state (`nil` is written as `null`).
  @inlinable
  public mutating func encode<T: Encodable>(_ value: T?, forKey key: String) throws {
    switch destination {
    case .object(let writer):
      if let value { try writer.encode(value, forKey: key) } else { writer.encodeNil(forKey: key) }
    case .keyed(var keyed):
      if let value {
        try keyed.encode(value, forKey: _StateCodingKey(key))
      } else {
        try keyed.encodeNil(forKey: _StateCodingKey(key))
      }
      destination = .keyed(keyed)
    }
  }

  /// A property that is not `Codable` is not state. (A restored model takes its default
  /// value; a property without one is rejected at compile time by the decoding side.)
  @inlinable
  public mutating func encode<T>(_ value: T?, forKey key: String) throws {}
}
