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
    of bytes: [UInt8], names: JSONMemberNames, maxDepth: Int = 512, _ body: (Int, JSONValue) -> Void
  ) -> Bool {
    bytes.withUnsafeBytes { buffer in
      var parser = JSONParser(buffer, maxDepth: maxDepth)
      return (try? parser.readKnownMembers(names: names, body)) ?? false
    }
  }
}

extension JSONParser {
  /// See ``JSONValue/readKnownMembers(of:names:maxDepth:_:)``.
  mutating func readKnownMembers(names: JSONMemberNames, _ body: (Int, JSONValue) -> Void) throws(JSONParseError) -> Bool {
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
  private mutating func knownName(_ names: JSONMemberNames) -> Int? {
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
    let key = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    let prefix = JSONMemberNames.prefix(of: key)
    for position in 0..<names.lengths.count where names.lengths[position] == length && names.prefixes[position] == prefix {
      // Names of up to 8 bytes are whole in their prefix; longer ones are compared on.
      if length > 8, !names.bytes[position].withUnsafeBytes({ $0.elementsEqual(key) }) { continue }
      index = end + 1
      return position
    }
    return nil
  }
}

/// The member names a reader looks for (``JSONValue/readKnownMembers(of:names:maxDepth:_:)``),
/// prepared once: each name's length and first eight bytes, so that a member's name is
/// matched with a comparison or two and no string is made.
///
/// ```swift
/// static let names = JSONMemberNames(["jsonrpc", "method", "params", "id"])
/// ```
public struct JSONMemberNames: Sendable {
  let bytes: [[UInt8]]
  let lengths: [Int]
  let prefixes: [UInt64]

  /// At most 64 names, each plain ASCII.
  public init(_ names: [String]) {
    precondition(names.count <= 64, "at most 64 names")
    bytes = names.map { Array($0.utf8) }
    lengths = bytes.map(\.count)
    prefixes = bytes.map { name in name.withUnsafeBytes { Self.prefix(of: $0) } }
  }

  /// The first (up to) eight bytes, as one number.
  static func prefix(of name: UnsafeRawBufferPointer) -> UInt64 {
    var prefix: UInt64 = 0
    for offset in 0..<min(8, name.count) { prefix |= UInt64(name[offset]) << (8 * UInt64(offset)) }
    return prefix
  }
}
