import ArborJSON
import Foundation
import Testing

@Suite struct JSONWriterTests {
  func text(_ value: JSONValue) -> String { String(decoding: value.jsonData(), as: UTF8.self) }

  @Test func compactWithSortedKeys() {
    #expect(text(["b": 1, "a": [true, nil, "x"], "c": ["z": 1.5, "y": -2]]) == #"{"a":[true,null,"x"],"b":1,"c":{"y":-2,"z":1.5}}"#)
    #expect(text([]) == "[]")
    #expect(text([:]) == "{}")
  }

  @Test func objectsOfAnySizeAreWrittenWithTheirKeysSorted() {
    var generator = SystemRandomNumberGenerator()
    for count in [0, 1, 2, 3, 5, 31, 32, 33, 60] {
      let keys = (0..<count).map { "k\($0 * 7 % 61)-\(Int.random(in: 0..<1000, using: &generator))" }
      var members: [String: JSONValue] = [:]
      for key in keys.shuffled(using: &generator) { members[key] = .string(key) }
      let expected = "{" + members.keys.sorted().map { #""\#($0)":"\#($0)""# }.joined(separator: ",") + "}"
      #expect(JSONValue.object(members).jsonString == expected, "\(count) members")
    }
  }

  @Test func stringsAreEscapedAsJSONRequires() {
    #expect(text("a\"b\\c/d\n\r\t\u{08}\u{0C}\u{01}é😀") == #""a\"b\\c/d\n\r\t\b\f\u0001é😀""#)
  }

  /// The byte a JSON writer escapes, as its escape; nil for a byte written as it is.
  static func escape(_ byte: UInt8) -> String? {
    switch byte {
    case UInt8(ascii: "\""): return #"\""#
    case UInt8(ascii: "\\"): return #"\\"#
    case 0x0A: return #"\n"#
    case 0x0D: return #"\r"#
    case 0x09: return #"\t"#
    case 0x08: return #"\b"#
    case 0x0C: return #"\f"#
    case 0..<0x20: return String(format: #"\u%04x"#, Int(byte))
    default: return nil
    }
  }

  @Test func everyByteIsEscapedOrNotWhereverItStandsInAString() {
    // Strings are scanned eight bytes at a time: each ASCII byte, at each place of strings
    // of 1 to 24 bytes among plain letters, and beside multi-byte characters (whose bytes
    // are 0x80 or more, the words' high bits).
    for byte in UInt8(0)..<0x80 {
      for length in 1...24 {
        for place in 0..<length {
          var utf8 = Array(repeating: UInt8(ascii: "a"), count: length)
          utf8[place] = byte
          let plain = String(decoding: utf8, as: UTF8.self)
          let expected = "\"" + String(decoding: utf8.prefix(place), as: UTF8.self) + (Self.escape(byte) ?? String(UnicodeScalar(byte)))
            + String(decoding: utf8.suffix(from: place + 1), as: UTF8.self) + "\""
          guard text(.string(plain)) == expected else {
            Issue.record("byte \(byte) at \(place) of \(length): \(text(.string(plain))), not \(expected)")
            return
          }
        }
      }
      let wide = "é😀é😀" + String(UnicodeScalar(byte)) + "ü"
      #expect(text(.string(wide)) == "\"é😀é😀" + (Self.escape(byte) ?? String(UnicodeScalar(byte))) + "ü\"", "byte \(byte) after wide characters")
    }
  }

  @Test func aValueLargerThanTheWritersChunkIsWrittenWhole() throws {
    // Pieces larger than a kilobyte, pieces that end at a chunk's edge, and many small ones.
    let long = String(repeating: "x", count: 5_000)
    let edge = String(repeating: "y", count: 1_022)
    let value: JSONValue = [
      "long": .string(long), "edge": .string(edge), "escaped": .string(String(repeating: "\"\n", count: 700)),
      "rows": .array((0..<3_000).map { ["id": .int(Int64($0)), "label": .string("item \($0)")] }),
    ]
    var prefix = Array("prefix ".utf8)
    value.writeJSON(to: &prefix)
    #expect(String(decoding: prefix.prefix(7), as: UTF8.self) == "prefix ")
    let written = Array(prefix.dropFirst(7))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    #expect(written == Array(try encoder.encode(value)), "the writer's bytes are Foundation's, sorted")
    #expect(try JSONValue(parsing: written) == value)
  }

  @Test func numbersReadBackExactly() throws {
    let values: [JSONValue] = [.int(.max), .int(.min), .double(0.1), .double(3), .double(-0.5), .double(1e300), .double(2.5e-8), .double(1e15), .double(123456789012.25)]
    for value in values {
      let decoded = try JSONDecoder().decode(JSONValue.self, from: value.jsonData())
      #expect(decoded == value, "\(value) wrote \(text(value))")
    }
    #expect(text(.double(3)) == "3")
  }

  @Test func randomDocumentsRoundTripThroughFoundation() throws {
    var random = SystemRandomNumberGenerator()
    func make(_ depth: Int) -> JSONValue {
      switch Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &random) {
      case 0: return .null
      case 1: return .bool(.random(using: &random))
      case 2: return .int(.random(in: -1_000_000...1_000_000, using: &random))
      case 3: return .double(.random(in: -1e6...1e6, using: &random))
      case 4: return .string(String((0..<Int.random(in: 0..<8, using: &random)).map { _ in "ab\"\\/\n é~".randomElement(using: &random)! }))
      case 5: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in make(depth + 1) })
      default:
        return .object(Dictionary((0..<Int.random(in: 0..<4, using: &random)).map { ("k\($0)\(["", "/", "~"].randomElement(using: &random)!)", make(depth + 1)) }, uniquingKeysWith: { a, _ in a }))
      }
    }
    for _ in 0..<500 {
      let value = make(0)
      #expect(try JSONDecoder().decode(JSONValue.self, from: value.jsonData()) == value)
    }
  }

  @Test func integersAreWrittenDigitByDigit() {
    for number: Int64 in [0, 7, -7, 10, 1_000_000, -1_234_567_890, .max, .min] {
      #expect(text(.int(number)) == String(number))
    }
  }

  @Test func pointersInPatchesAreEscapedForThePointerAndForJSON() throws {
    let patch = JSONPatch([
      .replace(JSONPointer(tokens: ["rows", "0", "count"]), 1),
      .add(JSONPointer(tokens: ["a/b", "m~n", "q\"uote", "back\\slash", "tab\t"]), true),
      .move(from: JSONPointer(tokens: ["", "é"]), to: JSONPointer(tokens: [])),
    ])
    let written = String(decoding: patch.jsonBytes, as: UTF8.self)
    #expect(
      written
        == #"[{"op":"replace","path":"/rows/0/count","value":1},{"op":"add","path":"/a~1b/m~0n/q\"uote/back\\slash/tab\t","value":true},{"from":"//é","op":"move","path":""}]"#)
    // What it wrote reads back as the same patch, and is what the encoder writes.
    #expect(try JSONDecoder().decode(JSONPatch.self, from: Data(patch.jsonBytes)) == patch)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    #expect(try JSONValue(parsing: Array(encoder.encode(patch))) == JSONValue(parsing: patch.jsonBytes))
  }
}
