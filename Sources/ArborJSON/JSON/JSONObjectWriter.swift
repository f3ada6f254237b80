/// Writes the members of the object a ``JSONValueEncoder`` is encoding, by name, without a
/// `KeyedEncodingContainer`: the encoding side of ``_JSONObjectReader``.
///
/// A model's generated `encode(to:)` writes its state through this when the encoder is a
/// `JSONValueEncoder`'s (snapshots, `state.get`, a watch's first reply): making a keyed
/// container allocates its box and calls each member through it. Any other encoder gets
/// nil and is written through its containers. The values and errors are the keyed
/// container's.
///
/// ```swift
/// struct Point: Encodable {
///   enum CodingKeys: CodingKey { case x }
///   var x: Int
///   func encode(to encoder: any Encoder) throws {
///     if let writer = _JSONObjectWriter(encoder) {
///       try writer.encode(x, forKey: "x")
///     } else {
///       var container = encoder.container(keyedBy: CodingKeys.self)
///       try container.encode(x, forKey: .x)
///     }
///   }
/// }
/// ```
public struct _JSONObjectWriter {
  let encoder: _JSONValueEncoderImpl
  let box: _JSONObjectBox

  /// The writer of `encoder`'s object, or nil when `encoder` is not a `JSONValueEncoder`'s.
  @inline(__always)
  public init?<E: Encoder>(_ encoder: E) {
    // A comparison of type metadata: `as?` on the existential costs a dynamic cast.
    guard E.self == _JSONValueEncoderImpl.self else { return nil }
    let impl = withUnsafePointer(to: encoder) { $0.withMemoryRebound(to: _JSONValueEncoderImpl.self, capacity: 1) { $0.pointee } }
    self.encoder = impl
    self.box = impl.objectBox()
  }

  /// Writes `value` as the member `name`.
  public func encode<T: Encodable>(_ value: T, forKey name: String) throws {
    box.set(try encoder.encode(value, depth: box.depth, extra: box.extra, key: _JSONKey.string(name)), for: name)
  }

  /// Writes `null` as the member `name`.
  public func encodeNil(forKey name: String) {
    box.set(.null, for: name)
  }

  /// Writes `text` as the member `name`, as it is.
  public func encode(_ text: String, forKey name: String) {
    box.set(.string(text), for: name)
  }
}
