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
    var raw: UInt64 = 0
    var digits = 0
    for byte in text.utf8 {
      guard let nibble = byte.hexDigitValue else { return nil }
      digits += 1
      guard digits <= 16 else { return nil }
      raw = raw << 4 | UInt64(nibble)
    }
    guard digits == 16 else { return nil }
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
