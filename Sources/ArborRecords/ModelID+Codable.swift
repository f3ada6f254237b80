import ArborJSON

extension ModelID: Codable {
  /// Decodes the 16 hexadecimal digits written by `encode(to:)`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let id = ModelID(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not a model id: expected 16 hexadecimal digits")
    }
    self = id
  }

  /// Encodes the id as 16 hexadecimal digits, e.g. `"9f3c07a1b2d40e15"`.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

extension ModelID {
  /// Parses the text form of an id: 16 hexadecimal digits.
  ///
  /// ```swift
  /// let id = ModelID("9f3c07a1b2d40e15")
  /// ```
  public init?(_ text: some StringProtocol) {
    // Read as bytes: counting the text's characters and `UInt64(_:radix:)` cost more than
    // the rest of a restored model's id (every model of a snapshot has one).
    guard let id = text.utf8.withContiguousStorageIfAvailable(ModelID.init(digits:)) ?? ModelID(digits: Array(text.utf8))
    else { return nil }
    self = id
  }

  /// Parses the text form of an id held in a `String`: the same as the generic initializer,
  /// without reading the text through `StringProtocol`'s witnesses (a fifth of a restored
  /// model's decoding when it did).
  ///
  /// ```swift
  /// let text = "9f3c07a1b2d40e15"
  /// let id = ModelID(text)
  /// ```
  public init?(_ text: String) {
    var text = text
    guard let id = text.withUTF8(ModelID.init(digits:)) else { return nil }
    self = id
  }

  /// Sixteen hexadecimal digits, as UTF-8.
  private init?(digits: some Collection<UInt8>) {
    guard digits.count == 16 else { return nil }
    var raw: UInt64 = 0
    for byte in digits {
      guard let nibble = byte.hexDigitValue else { return nil }
      raw = raw << 4 | UInt64(nibble)
    }
    self.init(rawValue: raw)
  }
}

/// A model id's JSON: a string of 16 lower-case hexadecimal digits, as in snapshots and
/// intent parameters (`removeButtonTapped(id:)` takes one).
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// ModelID.jsonSchema(in: &definitions)   // {"type": "string", "pattern": "^[0-9a-f]{16}$"}
/// ```
extension ModelID: JSONSchemaDescribing {
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    JSONSchema(["type": "string", "pattern": "^[0-9a-f]{16}$"])
  }
}
