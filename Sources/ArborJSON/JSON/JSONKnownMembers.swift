extension JSONValue {
  /// Reads one JSON text that is an object whose member names all come from `names`, each
  /// once, and hands each member's value to `body` with its name's position in `names`,
  /// without building the object's dictionary or its names' strings: for messages of a known
  /// shape, such as a JSON-RPC request's envelope.
  ///
  /// Returns false, having stopped reading, for anything else: another type, a name not in
  /// `names` or written with escapes, a name twice, invalid JSON. The caller then reads the
  /// text the general way (``init(parsing:maxDepth:)-(Bytes,_)``), which says what is wrong.
  /// `names` are plain ASCII.
  ///
  /// ```swift
  /// var method: JSONValue?
  /// let read = JSONValue.readKnownMembers(of: Array(#"{"method":"ping"}"#.utf8), names: ["method", "id"]) { name, value in
  ///   if name == 0 { method = value }
  /// }
  /// // read == true, method == .string("ping")
  /// ```
  public static func readKnownMembers(
    of bytes: [UInt8], names: [StaticString], maxDepth: Int = 512, _ body: (Int, JSONValue) -> Void
  ) -> Bool {
    bytes.withUnsafeBytes { buffer in
      var parser = JSONParser(buffer, maxDepth: maxDepth)
      return (try? parser.readKnownMembers(names: names, body)) ?? false
    }
  }
}

extension JSONParser {
  /// See ``JSONValue/readKnownMembers(of:names:maxDepth:_:)``.
  mutating func readKnownMembers(names: [StaticString], _ body: (Int, JSONValue) -> Void) throws(JSONParseError) -> Bool {
    precondition(names.count <= 64, "at most 64 names")
    skipWhitespace()
    guard index < bytes.count, bytes[index] == UInt8(ascii: "{"), maxDepth >= 1 else { return false }
    depth += 1
    index += 1
    var seen: UInt64 = 0
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return false }
      guard let name = knownName(names) else { return false }
      guard seen & (1 << UInt64(name)) == 0 else { return false }
      seen |= 1 << UInt64(name)
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return false }
      index += 1
      skipWhitespace()
      body(name, try parseValue())
      skipWhitespace()
      guard index < bytes.count else { return false }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        depth -= 1
        skipWhitespace()
        return index == bytes.count
      default: return false
      }
    }
  }

  /// Reads a member name (the index at its opening quote) that is one of `names`, written
  /// without escapes: its position in `names`, or nil.
  private mutating func knownName(_ names: [StaticString]) -> Int? {
    let start = index + 1
    var end = start
    while end < bytes.count {
      let byte = bytes[end]
      if byte == UInt8(ascii: "\"") { break }
      guard byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\\") else { return nil }
      end += 1
    }
    guard end < bytes.count else { return nil }
    let length = end - start
    let first = bytes[start]
    for position in names.indices {
      let name = names[position]
      guard name.utf8CodeUnitCount == length, length > 0, name.utf8Start[0] == first else { continue }
      var offset = 1
      while offset < length, bytes[start + offset] == name.utf8Start[offset] { offset += 1 }
      if offset == length {
        index = end + 1
        return position
      }
    }
    return nil
  }
}
