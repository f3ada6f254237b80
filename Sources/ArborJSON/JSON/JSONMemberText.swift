extension JSONValue {
  /// The exact text of the numbers a member holds, as written: for a top-level object,
  /// its member `name`; for a top-level array, that member of each element (nil where an
  /// element is not an object, lacks the member, or holds something other than a number).
  ///
  /// A parsed number that does not fit in `Int64` becomes a `Double`, which may not give
  /// its digits back; a JSON-RPC server that must echo an id exactly reads its text here.
  ///
  /// ```swift
  /// JSONValue.numberTexts(ofMember: "id", in: Array(#"{"id":18446744073709551617}"#.utf8))   // ["18446744073709551617"]
  /// ```
  public static func numberTexts<Bytes: Collection<UInt8>>(ofMember name: String, in bytes: Bytes, maxDepth: Int = 512) -> [String?] {
    let scan = { (buffer: UnsafeRawBufferPointer) -> [String?] in
      var parser = JSONParser(buffer, maxDepth: maxDepth)
      return (try? parser.numberTexts(ofMember: name)) ?? []
    }
    if let texts = bytes.withContiguousStorageIfAvailable({ scan(UnsafeRawBufferPointer($0)) }) { return texts }
    return Array(bytes).withUnsafeBytes(scan)
  }
}

extension JSONParser {
  /// See ``JSONValue/numberTexts(ofMember:in:maxDepth:)``.
  mutating func numberTexts(ofMember name: String) throws(JSONParseError) -> [String?] {
    skipWhitespace()
    guard index < bytes.count else { return [] }
    if bytes[index] == UInt8(ascii: "[") {
      index += 1
      var texts: [String?] = []
      skipWhitespace()
      if index < bytes.count, bytes[index] == UInt8(ascii: "]") { return [] }
      while index < bytes.count {
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "{") {
          texts.append(try memberNumberText(name))
        } else {
          _ = try parseValue()
          texts.append(nil)
        }
        skipWhitespace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
        index += 1
      }
      return texts
    }
    guard bytes[index] == UInt8(ascii: "{") else { return [nil] }
    return [try memberNumberText(name)]
  }

  /// Reads the object at `index`, returning the text of member `name` when it is a number.
  private mutating func memberNumberText(_ name: String) throws(JSONParseError) -> String? {
    index += 1
    var found: String?
    while index < bytes.count {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { break }
      let key = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { break }
      index += 1
      skipWhitespace()
      let start = index
      let value = try parseValue()
      if key == name {
        switch value {
        case .int, .double: found = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        default: found = nil
        }
      }
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { break }
      index += 1
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1 }
    return found
  }
}
