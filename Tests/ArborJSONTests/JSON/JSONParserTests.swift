import ArborJSON
import Foundation
import Testing

@Suite struct JSONParserTests {
  @Test func readsEveryKindOfValue() throws {
    let value = try JSONValue(parsing: #" {"a": [1, -2.5e3, true, false, null, "x\n\u00e9\ud83d\ude00"], "b": {}, "c": [], "big": 9223372036854775807} "#)
    #expect(value == ["a": [1, -2500.0, true, false, nil, "x\né😀"], "b": [:], "c": [], "big": .int(Int64.max)])
  }

  @Test func integersStayExactAndLargeOnesBecomeDoubles() throws {
    #expect(try JSONValue(parsing: "-9223372036854775808") == .int(Int64.min))
    #expect(try JSONValue(parsing: "18446744073709551616") == .double(18446744073709551616))
    #expect(try JSONValue(parsing: "0.1") == .double(0.1))
  }

  @Test(arguments: [
    ("", "at byte 0: expected a value, found the end of the text"),
    ("{\"a\":}", "at byte 5: expected a value, found '}'"),
    ("[1,]", "at byte 3: expected a value, found ']'"),
    ("01", "at byte 1: leading zeros are not allowed"),
    ("{\"a\" 1}", "at byte 5: expected ':' after member name \"a\""),
    ("\"tab\there\"", "at byte 4: control character byte 0x9 in a string (escape it)"),
    ("\"\\ud800\"", "at byte 7: a high surrogate \\ud800 must be followed by a low one"),
    ("\"\\x\"", "at byte 1: invalid escape '\\x'"),
    ("[1] [2]", "at byte 4: unexpected '[' after the value"),
    ("1e999", "at byte 0: the number 1e999 is out of range"),
    ("nul", "at byte 0: expected 'null'"),
  ])
  func malformedTextNamesWhereAndWhat(text: String, message: String) {
    #expect(throws: JSONParseError.self) { try JSONValue(parsing: text) }
    do { _ = try JSONValue(parsing: text) } catch { #expect(error.description == message) }
  }

  @Test func invalidUTF8InAStringIsAnError() {
    #expect(throws: JSONParseError(offset: 1, reason: "the string is not valid UTF-8")) {
      try JSONValue(parsing: [0x22, 0xC3, 0x28, 0x22])
    }
  }

  @Test func deepNestingIsAnErrorNotACrash() {
    let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
    #expect(throws: JSONParseError.self) { try JSONValue(parsing: deep) }
    let ok = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
    #expect(throws: Never.self) { try JSONValue(parsing: ok) }
  }

  @Test func agreesWithJSONSerializationOnRandomDocuments() throws {
    var generator = SystemRandomNumberGenerator()
    func random(_ depth: Int) -> JSONValue {
      switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &generator) {
      case 0: return .null
      case 1: return .bool(Bool.random(using: &generator))
      case 2: return .int(Int64.random(in: -1_000_000...1_000_000, using: &generator))
      case 3: return .double(Double.random(in: -1e6...1e6, using: &generator))
      case 4: return .string(String((0..<Int.random(in: 0..<8, using: &generator)).map { _ in "aé\"\\\n😀z".randomElement(using: &generator)! }))
      case 5: return .array((0..<Int.random(in: 0..<4, using: &generator)).map { _ in random(depth + 1) })
      default:
        return .object(Dictionary((0..<Int.random(in: 0..<4, using: &generator)).map { ("k\($0)", random(depth + 1)) }, uniquingKeysWith: { a, _ in a }))
      }
    }
    for _ in 0..<500 {
      let value = random(0)
      let text = value.jsonData()
      #expect(try JSONValue(parsing: text) == value)
      let viaFoundation = try JSONDecoder().decode(JSONValue.self, from: text)
      #expect(try JSONValue(parsing: text) == viaFoundation)
    }
  }

  @Test func nestedObjectsKeepTheirOwnMembersAndARepeatedNameKeepsItsLastValue() throws {
    // Members are gathered on one stack while an object is read: an inner object's
    // members must not leak into the outer one, nor the outer's into the inner.
    let value = try JSONValue(parsing: #"{"a": 1, "inner": {"a": 2, "deeper": {"a": 3}, "b": 4}, "a": 5, "list": [{"x": 1}, {}, {"x": 2, "x": 3}]}"#)
    #expect(value == ["a": 5, "inner": ["a": 2, "deeper": ["a": 3], "b": 4], "list": [["x": 1], [:], ["x": 3]]])
    // The same through the array overload and the generic one.
    let bytes = Array(#"{"k": {"k": {"k": []}}}"#.utf8)
    #expect(try JSONValue(parsing: bytes) == JSONValue(parsing: bytes[...]))
  }

  @Test func asciiStringsAreCopiedAndOthersStillValidated() throws {
    #expect(try JSONValue(parsing: #"["", "plain", "\u007f\u0001", "déjà vu", "x\"y"]"#) == ["", "plain", "\u{7F}\u{01}", "déjà vu", "x\"y"])
    // Invalid UTF-8 after ASCII bytes in the same string is still refused, at its string.
    let bad: [UInt8] = Array(#"["ok", "ab"#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8)
    #expect(throws: JSONParseError(offset: 8, reason: "the string is not valid UTF-8")) { try JSONValue(parsing: bad) }
  }
}
