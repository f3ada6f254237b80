/// A JSON Pointer (RFC 6901): a path to a value inside a JSON document.
///
/// ```swift
/// let pointer = try JSONPointer("/counters/0/counter")
/// let value = try pointer.resolve(in: state)
/// ```
public struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
  /// The reference tokens, unescaped: `/a~1b/0` is `["a/b", "0"]`.
  public let tokens: [String]

  /// The whole document.
  public static let root = JSONPointer(tokens: [])

  public init(tokens: [String]) { self.tokens = tokens }

  /// Parses a pointer; throws for text that is not one (it must be empty or start with
  /// `/`, and `~` must be followed by `0` or `1`).
  public init(_ text: String) throws {
    guard !text.isEmpty else {
      self.tokens = []
      return
    }
    // Bytes and scalars, not characters: a token may begin with a combining mark, which
    // makes one character of the `/` before it.
    guard text.utf8.first == UInt8(ascii: "/") else { throw JSONPointerError.syntax(text, "a pointer must be empty or start with '/'") }
    var text = text
    // No escapes (almost every pointer): each token is the bytes between two slashes,
    // copied out of the text's UTF-8 at once.
    let plain: [String]? = text.withUTF8 { utf8 in
      let slash = UInt8(ascii: "/")
      var slashes = 0
      for byte in utf8 {
        if byte == UInt8(ascii: "~") { return nil }
        if byte == slash { slashes += 1 }
      }
      var tokens: [String] = []
      tokens.reserveCapacity(slashes)
      var start = 1
      for index in 1...utf8.count where index == utf8.count || utf8[index] == slash {
        tokens.append(String(decoding: UnsafeBufferPointer(rebasing: utf8[start..<index]), as: UTF8.self))
        start = index + 1
      }
      return tokens
    }
    if let plain {
      self.tokens = plain
      return
    }
    var tokens: [String] = []
    var token = String.UnicodeScalarView()
    var escaping = false
    for scalar in text.unicodeScalars.dropFirst() {
      if escaping {
        switch scalar {
        case "0": token.append("~")
        case "1": token.append("/")
        default: throw JSONPointerError.syntax(text, "'~' must be followed by '0' or '1'")
        }
        escaping = false
      } else if scalar == "~" {
        escaping = true
      } else if scalar == "/" {
        tokens.append(String(token))
        token = String.UnicodeScalarView()
      } else {
        token.append(scalar)
      }
    }
    if escaping { throw JSONPointerError.syntax(text, "'~' must be followed by '0' or '1'") }
    tokens.append(String(token))
    self.tokens = tokens
  }

  /// The pointer written out, escaped.
  public var description: String {
    var text = ""
    for token in tokens {
      text.append("/")
      // Most tokens need no escape: skip the replacing then.
      if token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) {
        text.append(Self.escaped(token))
      } else {
        text.append(token)
      }
    }
    return text
  }

  /// A token with `~` written `~0` and `/` written `~1`, scalar by scalar (replacing
  /// characters would miss a `/` followed by a combining mark, one character with it).
  /// The runtime's ``PathComponent`` spells its components with it too.
  package static func escaped(_ token: String) -> String {
    // Most tokens (property names, indexes) have nothing to escape: returned as they are,
    // without a copy. `~` and `/` are single UTF-8 bytes that no multi-byte scalar contains.
    guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
    var result = String.UnicodeScalarView()
    for scalar in token.unicodeScalars {
      switch scalar {
      case "~": result.append(contentsOf: "~0".unicodeScalars)
      case "/": result.append(contentsOf: "~1".unicodeScalars)
      default: result.append(scalar)
      }
    }
    return String(result)
  }

  /// The pointer to the parent and the last token; nil for the root.
  public var parentAndLast: (parent: JSONPointer, last: String)? {
    guard let last = tokens.last else { return nil }
    return (JSONPointer(tokens: Array(tokens.dropLast())), last)
  }

  /// This pointer with one more token.
  public func appending(_ token: String) -> JSONPointer { JSONPointer(tokens: tokens + [token]) }

  /// The value this pointer names in `document`.
  public func resolve(in document: JSONValue) throws -> JSONValue {
    var current = document
    for (depth, token) in tokens.enumerated() {
      // The pointer so far, made only for an error.
      func here() -> JSONPointer { JSONPointer(tokens: Array(tokens.prefix(depth + 1))) }
      switch current {
      case .object(let members):
        guard let next = members[token] else { throw JSONPointerError.notFound(here()) }
        current = next
      case .array(let elements):
        let index = try Self.arrayIndex(token, count: elements.count, at: here())
        guard index < elements.count else { throw JSONPointerError.notFound(here()) }
        current = elements[index]
      default:
        throw JSONPointerError.notAContainer(JSONPointer(tokens: Array(tokens.prefix(depth))), current.typeName)
      }
    }
    return current
  }

  /// The index a token names in an array, per RFC 6901: digits without leading zeros;
  /// nil for any other token.
  ///
  /// ```swift
  /// JSONPointer.index(named: "12")   // 12
  /// JSONPointer.index(named: "012")  // nil
  /// ```
  public static func index(named token: String) -> Int? {
    var index = 0
    var digits = 0
    for byte in token.utf8 {
      guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9"), !(digits == 1 && index == 0) else { return nil }
      let (times, overflowA) = index.multipliedReportingOverflow(by: 10)
      let (sum, overflowB) = times.addingReportingOverflow(Int(byte - UInt8(ascii: "0")))
      guard !overflowA, !overflowB else { return nil }
      index = sum
      digits += 1
    }
    return digits > 0 ? index : nil
  }

  /// ``index(named:)``, or the error naming `pointer` (made only for the error).
  static func arrayIndex(_ token: String, count: Int, at pointer: @autoclosure () -> JSONPointer) throws -> Int {
    guard let index = index(named: token) else { throw JSONPointerError.invalidIndex(pointer(), token) }
    return index
  }

}

/// Why a JSON Pointer could not be parsed or resolved.
public enum JSONPointerError: Error, Equatable, CustomStringConvertible {
  case syntax(String, String)
  case notFound(JSONPointer)
  case notAContainer(JSONPointer, String)
  case invalidIndex(JSONPointer, String)

  public var description: String {
    switch self {
    case .syntax(let text, let reason): return "'\(text)' is not a JSON Pointer: \(reason)"
    case .notFound(let pointer): return "nothing at '\(pointer)'"
    case .notAContainer(let pointer, let type): return "'\(pointer)' is a \(type), which has no members"
    case .invalidIndex(let pointer, let token): return "'\(token)' at '\(pointer)' is not an array index"
    }
  }
}
