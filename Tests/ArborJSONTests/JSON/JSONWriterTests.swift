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
