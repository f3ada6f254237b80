/// Why text could not be read as JSON: where (a byte offset) and what was wrong.
///
/// ```swift
/// do { _ = try JSONValue(parsing: Array("{\"a\":}".utf8)) }
/// catch { print(error) }   // at byte 5: expected a value, found '}'
/// ```
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
  /// The offset of the byte where reading stopped, from 0.
  public var offset: Int
  public var reason: String

  public init(offset: Int, reason: String) {
    self.offset = offset
    self.reason = reason
  }

  public var description: String { "at byte \(offset): \(reason)" }
}

extension JSONValue {
  /// Reads one JSON text (RFC 8259) from UTF-8 bytes: whitespace around one value and
  /// nothing else. Strict: invalid UTF-8, control characters in strings, lone surrogates,
  /// trailing commas, leading zeros and nesting deeper than `maxDepth` are errors, never
  /// crashes. Integers that fit in 64 bits stay exact.
  ///
  /// ```swift
  /// let value = try JSONValue(parsing: Array(#"{"count": 3}"#.utf8))   // ["count": 3]
  /// ```
  public init<Bytes: Collection<UInt8>>(parsing bytes: Bytes, maxDepth: Int = 512) throws(JSONParseError) {
    let parsed: Result<JSONValue, JSONParseError>? = bytes.withContiguousStorageIfAvailable { buffer in
      Result { () throws(JSONParseError) in
        var parser = JSONParser(UnsafeRawBufferPointer(buffer), maxDepth: maxDepth)
        return try parser.parseDocument()
      }
    }
    if let parsed {
      self = try parsed.get()
    } else {
      let copy = Array(bytes)
      let result = copy.withUnsafeBytes { buffer in
        Result { () throws(JSONParseError) in
          var parser = JSONParser(buffer, maxDepth: maxDepth)
          return try parser.parseDocument()
        }
      }
      self = try result.get()
    }
  }

  /// Reads one JSON text from bytes in an array; see ``init(parsing:maxDepth:)-(Bytes,_)``.
  /// The same reader, without the generic collection's witnesses in between.
  ///
  /// ```swift
  /// let value = try JSONValue(parsing: Array("[1, 2]".utf8))
  /// ```
  public init(parsing bytes: [UInt8], maxDepth: Int = 512) throws(JSONParseError) {
    let result = bytes.withUnsafeBytes { buffer in
      Result { () throws(JSONParseError) in
        var parser = JSONParser(buffer, maxDepth: maxDepth)
        return try parser.parseDocument()
      }
    }
    self = try result.get()
  }

  /// Reads one JSON text from a string; see ``init(parsing:maxDepth:)-(Bytes,_)``.
  ///
  /// ```swift
  /// let value = try JSONValue(parsing: "[1, 2.5, \"x\"]")
  /// ```
  public init(parsing text: String, maxDepth: Int = 512) throws(JSONParseError) {
    try self.init(parsing: Array(text.utf8), maxDepth: maxDepth)
  }
}

/// A recursive-descent reader over a byte buffer. Recursion is bounded by `maxDepth`.
struct JSONParser {
  let bytes: UnsafeRawBufferPointer
  let maxDepth: Int
  var index = 0
  var depth = 0
  /// The members of the objects being read, innermost last: an object is made once its
  /// members are all read, with room for exactly them (no growing, no rehashing).
  var pendingMembers: [(key: String, value: JSONValue)] = []

  init(_ bytes: UnsafeRawBufferPointer, maxDepth: Int) {
    self.bytes = bytes
    self.maxDepth = maxDepth
  }

  mutating func parseDocument() throws(JSONParseError) -> JSONValue {
    skipWhitespace()
    let value = try parseValue()
    skipWhitespace()
    guard index == bytes.count else { throw fail("unexpected \(describe(bytes[index])) after the value") }
    return value
  }

  private func fail(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

  func describe(_ byte: UInt8) -> String {
    if byte >= 0x21 && byte < 0x7F { return "'\(Character(Unicode.Scalar(byte)))'" }
    return "byte 0x" + String(byte, radix: 16, uppercase: true)
  }

  mutating func skipWhitespace() {
    while index < bytes.count {
      switch bytes[index] {
      case 0x20, 0x0A, 0x0D, 0x09: index += 1
      default: return
      }
    }
  }

  mutating func parseValue() throws(JSONParseError) -> JSONValue {
    guard index < bytes.count else { throw fail("expected a value, found the end of the text") }
    switch bytes[index] {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return .string(try parseString())
    case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
    case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
    case UInt8(ascii: "n"): try expectLiteral("null"); return .null
    case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
    case let byte: throw fail("expected a value, found \(describe(byte))")
    }
  }

  private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
    let count = literal.utf8CodeUnitCount
    guard index + count <= bytes.count else { throw fail("expected '\(literal)'") }
    for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
      throw fail("expected '\(literal)'")
    }
    index += count
  }

  private mutating func enter() throws(JSONParseError) {
    depth += 1
    guard depth <= maxDepth else { throw fail("nested deeper than \(maxDepth) levels") }
  }

  private mutating func parseObject() throws(JSONParseError) -> JSONValue {
    try enter()
    index += 1
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
      index += 1
      depth -= 1
      return .object([:])
    }
    let first = pendingMembers.count
    if pendingMembers.capacity == 0 { pendingMembers.reserveCapacity(16) }
    while true {
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
        throw fail(index < bytes.count ? "expected a member name in quotes, found \(describe(bytes[index]))" : "unterminated object")
      }
      let key = try parseString()
      skipWhitespace()
      guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':' after member name \"\(key)\"") }
      index += 1
      skipWhitespace()
      let value = try parseValue()
      pendingMembers.append((key, value))
      skipWhitespace()
      guard index < bytes.count else { throw fail("unterminated object") }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "}"):
        index += 1
        depth -= 1
        return .object(takeMembers(from: first))
      case let byte: throw fail("expected ',' or '}' in object, found \(describe(byte))")
      }
    }
  }

  /// The members read since `first`, as an object's dictionary; a repeated name keeps its
  /// last value.
  private mutating func takeMembers(from first: Int) -> [String: JSONValue] {
    var members = [String: JSONValue](minimumCapacity: pendingMembers.count - first)
    for index in first..<pendingMembers.count {
      members[pendingMembers[index].key] = pendingMembers[index].value
    }
    pendingMembers.removeSubrange(first...)
    return members
  }

  private mutating func parseArray() throws(JSONParseError) -> JSONValue {
    try enter()
    index += 1
    var elements: [JSONValue] = []
    skipWhitespace()
    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
      index += 1
      depth -= 1
      return .array(elements)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      guard index < bytes.count else { throw fail("unterminated array") }
      switch bytes[index] {
      case UInt8(ascii: ","): index += 1
      case UInt8(ascii: "]"):
        index += 1
        depth -= 1
        return .array(elements)
      case let byte: throw fail("expected ',' or ']' in array, found \(describe(byte))")
      }
    }
  }

  private mutating func parseNumber() throws(JSONParseError) -> JSONValue {
    let start = index
    var isInteger = true
    if bytes[index] == UInt8(ascii: "-") { index += 1 }
    guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit") }
    if bytes[index] == UInt8(ascii: "0") {
      index += 1
      if index < bytes.count, isDigit(bytes[index]) { throw fail("leading zeros are not allowed") }
    } else {
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
      isInteger = false
      index += 1
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit after '.'") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
      isInteger = false
      index += 1
      if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
      guard index < bytes.count, isDigit(bytes[index]) else { throw fail("expected a digit in the exponent") }
      while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }
    let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    if isInteger, let integer = Int64(text) { return .int(integer) }
    guard let number = Double(text), number.isFinite else {
      index = start
      throw fail("the number \(text) is out of range")
    }
    return .double(number)
  }

  private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

  mutating func parseString() throws(JSONParseError) -> String {
    index += 1
    let start = index
    // Fast path: no escapes.
    var ascii = true
    while index < bytes.count {
      let byte = bytes[index]
      if byte == UInt8(ascii: "\"") {
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
        let text: String
        if ascii {
          // ASCII is valid UTF-8: copied as it is, without the generic validation.
          text = String(unsafeUninitializedCapacity: slice.count) { buffer in
            guard let base = slice.baseAddress, let target = buffer.baseAddress else { return 0 }
            target.initialize(from: base.assumingMemoryBound(to: UInt8.self), count: slice.count)
            return slice.count
          }
        } else {
          guard let valid = String(validating: slice, as: UTF8.self) else {
            index = start
            throw fail("the string is not valid UTF-8")
          }
          text = valid
        }
        index += 1
        return text
      }
      if byte == UInt8(ascii: "\\") { break }
      if byte < 0x20 { throw fail("control character \(describe(byte)) in a string (escape it)") }
      if byte >= 0x80 { ascii = false }
      index += 1
    }
    var utf8 = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
    while index < bytes.count {
      let byte = bytes[index]
      switch byte {
      case UInt8(ascii: "\""):
        guard let text = String(validating: utf8, as: UTF8.self) else {
          index = start
          throw fail("the string is not valid UTF-8")
        }
        index += 1
        return text
      case UInt8(ascii: "\\"):
        index += 1
        guard index < bytes.count else { throw fail("unterminated string") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""): utf8.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): utf8.append(UInt8(ascii: "\\"))
        case UInt8(ascii: "/"): utf8.append(UInt8(ascii: "/"))
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
          let scalar = try parseUnicodeEscape()
          utf8.append(contentsOf: String(Character(scalar)).utf8)
        default:
          index -= 2
          throw fail("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
        }
      default:
        if byte < 0x20 { throw fail("control character \(describe(byte)) in a string (escape it)") }
        utf8.append(byte)
        index += 1
      }
    }
    throw fail("unterminated string")
  }

  private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
    guard index + 4 <= bytes.count else { throw fail("expected four hexadecimal digits after '\\u'") }
    var value: UInt32 = 0
    for _ in 0..<4 {
      let byte = bytes[index]
      guard let digit = byte.hexDigitValue else { throw fail("expected a hexadecimal digit, found \(describe(byte))") }
      value = value << 4 | UInt32(digit)
      index += 1
    }
    return value
  }

  private mutating func parseUnicodeEscape() throws(JSONParseError) -> Unicode.Scalar {
    let first = try parseHex4()
    switch first {
    case 0xD800...0xDBFF:
      guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
        throw fail("a high surrogate \\u\(String(first, radix: 16)) must be followed by a low one")
      }
      index += 2
      let second = try parseHex4()
      guard (0xDC00...0xDFFF).contains(second) else { throw fail("expected a low surrogate, found \\u\(String(second, radix: 16))") }
      return Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
    case 0xDC00...0xDFFF:
      throw fail("a lone low surrogate \\u\(String(first, radix: 16))")
    default:
      return Unicode.Scalar(first)!
    }
  }
}
