import ArborJSON
import Foundation
import Testing

/// Codable values covering what the encoder and decoder must handle; shared by both suites.
enum CodingFixtures {
  struct Empty: Codable, Equatable, Sendable {}

  struct Address: Codable, Equatable, Sendable {
    var street: String
    var zip: String?
  }

  enum Shape: Codable, Equatable, Sendable {
    case circle(radius: Double)
    case rectangle(Double, Double)
    case labeled(String, at: Int)
    case point
  }

  enum Color: String, Codable, Equatable, Sendable, CodingKeyRepresentable {
    case red, green
  }

  struct Person: Codable, Equatable, Sendable {
    var name: String
    var age: Int
    var nickname: String?
    var address: Address?
    var previous: [Address]
    var tags: [String]
    var scores: [String: Double]
    var byID: [Int: String]
    var byColor: [Color: Int]
    var matrix: [[Int]]
    var shapes: [Shape]
    var flags: [Bool?]
    var maybe: Int??
    var empty: Empty
    var birthday: Date
    var avatar: Data
    var homepage: URL
  }

  struct Numbers: Codable, Equatable, Sendable {
    var int64Min: Int64 = .min
    var int64Max: Int64 = .max
    var uint64: UInt64 = UInt64(Int64.max)
    var int: Int = -42
    var uint: UInt = 42
    var int8: Int8 = .min
    var int16: Int16 = .max
    var int32: Int32 = .min
    var uint8: UInt8 = .max
    var uint16: UInt16 = .max
    var uint32: UInt32 = .max
    var double: Double = 0.1
    var whole: Double = 3
    var negativeZero: Double = -0.0
    var huge: Double = 1e300
    var tiny: Double = .leastNonzeroMagnitude
    var float: Float = 0.1
    var floatMax: Float = .greatestFiniteMagnitude
    var decimal = Decimal(string: "3.25")!
    var wholeDecimal = Decimal(42)
    var date = Date(timeIntervalSinceReferenceDate: 123_456.789)
  }

  /// Written by hand with nested containers and super encoders, as classes and unusual
  /// formats do.
  struct Handwritten: Codable, Equatable, Sendable {
    var count: Int
    var words: [String]
    var address: Address

    enum CodingKeys: String, CodingKey { case count, nested, list, inner, pairs }
    enum NestedKeys: String, CodingKey { case double, list, flag }

    init(count: Int, words: [String], address: Address) {
      self.count = count
      self.words = words
      self.address = address
    }

    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(count, forKey: .count)
      var nested = container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
      try nested.encode(count * 2, forKey: .double)
      var list = nested.nestedUnkeyedContainer(forKey: .list)
      for word in words { try list.encode(word) }
      var last = list.nestedContainer(keyedBy: NestedKeys.self)
      try last.encode(true, forKey: .flag)
      try address.encode(to: container.superEncoder())
      try address.encode(to: container.superEncoder(forKey: .inner))
      var pairs = container.nestedUnkeyedContainer(forKey: .pairs)
      try pairs.encodeNil()
      try address.encode(to: pairs.superEncoder())
      var pair = pairs.nestedUnkeyedContainer()
      try pair.encode(UInt8(7))
    }

    init(from decoder: any Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      count = try container.decode(Int.self, forKey: .count)
      let nested = try container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
      guard try nested.decode(Int.self, forKey: .double) == count * 2 else {
        throw DecodingError.dataCorruptedError(forKey: .double, in: nested, debugDescription: "not twice the count")
      }
      var list = try nested.nestedUnkeyedContainer(forKey: .list)
      var words: [String] = []
      while let count = list.count, list.currentIndex < count - 1 { words.append(try list.decode(String.self)) }
      let last = try list.nestedContainer(keyedBy: NestedKeys.self)
      guard try last.decode(Bool.self, forKey: .flag) else {
        throw DecodingError.dataCorruptedError(forKey: .flag, in: last, debugDescription: "flag not set")
      }
      self.words = words
      address = try Address(from: container.superDecoder())
      guard try Address(from: container.superDecoder(forKey: .inner)) == address else {
        throw DecodingError.dataCorruptedError(forKey: .inner, in: container, debugDescription: "inner differs")
      }
      var pairs = try container.nestedUnkeyedContainer(forKey: .pairs)
      guard try pairs.decodeNil(), try Address(from: pairs.superDecoder()) == address else {
        throw DecodingError.dataCorruptedError(in: pairs, debugDescription: "pairs differ")
      }
      var pair = try pairs.nestedUnkeyedContainer()
      guard try pair.decode(UInt8.self) == 7, pair.isAtEnd, pairs.isAtEnd else {
        throw DecodingError.dataCorruptedError(in: pairs, debugDescription: "pair differs")
      }
    }
  }

  static let person = Person(
    name: "Ada", age: 36, nickname: nil, address: Address(street: "1 Main St", zip: "12345"),
    previous: [Address(street: "2 Side St", zip: nil), Address(street: "", zip: "0")],
    tags: ["a", "", "ü ✓"], scores: ["math": 9.5, "art": 7], byID: [3: "c", -1: "minus"],
    byColor: [.red: 1, .green: 2], matrix: [[1, 2], [], [3]],
    shapes: [.circle(radius: 1.5), .rectangle(2, 3), .labeled("x", at: 4), .point],
    flags: [true, nil, false], maybe: .some(5), empty: Empty(),
    birthday: Date(timeIntervalSinceReferenceDate: -1_000_000.25), avatar: Data([0, 1, 2, 254, 255]),
    homepage: URL(string: "https://example.com/a%20b?q=1#top")!)

  /// Each fixture with a name; all of them round-trip.
  static let all: [Fixture] = [
    Fixture("person", person),
    Fixture("person without optionals", Person(
      name: "", age: 0, nickname: "n", address: nil, previous: [], tags: [], scores: [:], byID: [:], byColor: [:],
      matrix: [], shapes: [], flags: [], maybe: nil, empty: Empty(), birthday: Date(timeIntervalSinceReferenceDate: 0),
      avatar: Data(), homepage: URL(string: "file:///tmp/x")!)),
    Fixture("numbers", Numbers()),
    Fixture("handwritten containers", Handwritten(count: 2, words: ["x", "y"], address: Address(street: "s", zip: nil))),
    Fixture("empty struct", Empty()),
    Fixture("array of empty structs", [Empty(), Empty()]),
    Fixture("nested arrays", [[[1, 2], [3]], [], [[]]]),
    Fixture("optional array", [1, nil, 3] as [Int?]),
    Fixture("dictionary with Int keys", [1: [Shape.point], 2: []]),
    Fixture("dictionary with Bool keys", [true: "yes"]),
    Fixture("top-level string", "hello"),
    Fixture("top-level nil", Int?.none),
    Fixture("top-level Int64.min", Int64.min),
    Fixture("top-level UInt64 at Int64.max", UInt64(Int64.max)),
    Fixture("top-level date", Date(timeIntervalSinceReferenceDate: 42)),
    Fixture("top-level data", Data("hello".utf8)),
    Fixture("top-level URL", URL(string: "https://example.com")!),
    Fixture("enum with associated values", Shape.labeled("ok", at: -3)),
    Fixture("JSONValue", ["a": [1, 2.5, "x", nil, true], "b": [:]] as JSONValue),
  ]
}

/// A named value for parameterized tests.
struct Fixture: Sendable, CustomTestStringConvertible {
  let name: String
  let value: any Codable & Equatable & Sendable

  init(_ name: String, _ value: any Codable & Equatable & Sendable) {
    self.name = name
    self.value = value
  }

  var testDescription: String { name }
}

/// What `JSONEncoder` writes for `value`, read back as a `JSONValue`.
func foundationJSON<T: Encodable>(_ value: T) throws -> JSONValue {
  try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(value))
}

/// A coding path as strings, with array indexes as their numbers.
func pathStrings(_ path: [any CodingKey]) -> [String] {
  path.map { $0.intValue.map(String.init) ?? $0.stringValue }
}

@Suite struct JSONValueEncoderTests {
  @Test(arguments: CodingFixtures.all)
  func matchesJSONEncoder(fixture: Fixture) throws {
    try expectMatchesFoundation(fixture.value)
  }

  private func expectMatchesFoundation<T: Encodable>(_ value: T) throws {
    #expect(try JSONValueEncoder().encode(value) == foundationJSON(value))
  }

  @Test func relativeURLsAreWrittenAbsolute() throws {
    let url = URL(string: "c/d?e=f", relativeTo: URL(string: "https://example.com/a/")!)!
    #expect(try JSONValueEncoder().encode(url) == .string("https://example.com/a/c/d?e=f"))
    #expect(try JSONValueEncoder().encode(url) == foundationJSON(url))
  }

  @Test func kindsOfNumbersAreKept() throws {
    let value = try JSONValueEncoder().encode(CodingFixtures.Numbers())
    guard case .object(let members) = value else {
      Issue.record("expected an object, got \(value)")
      return
    }
    #expect(members["int64Max"] == .int(.max))
    if case .int = members["int64Max"] {} else { Issue.record("Int64 must encode as .int") }
    if case .double = members["whole"] {} else { Issue.record("Double must encode as .double") }
    #expect(members["float"] == .double(0.1))
    #expect(members["decimal"] == .double(3.25))
    #expect(members["wholeDecimal"] == .int(42))
    #expect(members["date"] == .double(123_456.789))
  }

  @Test func absentOptionalsAreLeftOutAndExplicitNilIsNull() throws {
    let value = try JSONValueEncoder().encode(CodingFixtures.Address(street: "s", zip: nil))
    #expect(value == ["street": "s"])

    struct ExplicitNil: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingFixtures.Handwritten.CodingKeys.self)
        try container.encodeNil(forKey: .count)
      }
    }
    #expect(try JSONValueEncoder().encode(ExplicitNil()) == ["count": nil])
  }

  @Test func aDoubleOptionalHoldingNilIsNull() throws {
    struct Nested: Codable { var maybe: Int?? }
    #expect(try JSONValueEncoder().encode(Nested(maybe: .some(nil))) == ["maybe": nil])
    #expect(try JSONValueEncoder().encode(Nested(maybe: .some(nil))) == foundationJSON(Nested(maybe: .some(nil))))
    #expect(try JSONValueEncoder().encode(Nested(maybe: nil)) == [:])
  }

  @Test func dataIsBase64() throws {
    #expect(try JSONValueEncoder().encode(Data([1, 2, 3, 255])) == "AQID/w==")
  }

  @Test func aValueThatEncodesNothingIsAnEmptyObject() throws {
    struct Silent: Encodable {
      func encode(to encoder: any Encoder) throws {}
    }
    #expect(try JSONValueEncoder().encode(Silent()) == [:])
    #expect(try JSONValueEncoder().encode([Silent()]) == [[:]])
    #expect(try JSONValueEncoder().encode([Silent()]) == foundationJSON([Silent()]))
  }

  @Test func integersBeyondInt64AreRejected() throws {
    struct Big: Encodable {
      var values: [UInt64]
    }
    do {
      _ = try JSONValueEncoder().encode(Big(values: [1, UInt64.max]))
      Issue.record("expected an error")
    } catch EncodingError.invalidValue(let value, let context) {
      #expect(value as? UInt64 == UInt64.max)
      #expect(pathStrings(context.codingPath) == ["values", "1"])
      #expect(context.debugDescription.contains("18446744073709551615"))
    }
    #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(UInt64(Int64.max) + 1) }
  }

  @Test func nonFiniteNumbersAreRejectedLikeJSONEncoder() throws {
    struct Wrapper: Encodable {
      var values: [String: [Double]]
    }
    let value = Wrapper(values: ["x": [1, .nan]])
    let encoders: [() throws -> Void] = [{ _ = try JSONValueEncoder().encode(value) }, { _ = try JSONEncoder().encode(value) }]
    for encode in encoders {
      do {
        try encode()
        Issue.record("expected an error")
      } catch EncodingError.invalidValue(let value, let context) {
        #expect((value as? Double)?.isNaN == true)
        #expect(pathStrings(context.codingPath) == ["values", "x", "1"])
        #expect(context.debugDescription.hasPrefix("Unable to encode Double.nan directly in JSON."))
      }
    }
    #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float.infinity) }
    #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["a": JSONValue.double(.infinity)]) }
  }

  /// A daemon's reply holding its state takes the state's `JSONValue` as it is (it was
  /// encoded once already); a plain `Double` is still checked.
  @Test func aTrustingEncoderTakesJSONValuesAsTheyAreAndStillChecksNumbers() throws {
    struct Reply: Encodable {
      var revision: UInt64
      var value: JSONValue
    }
    var trusting = JSONValueEncoder()
    trusting.trustsJSONValues = true
    let state: JSONValue = ["rows": [["count": 1], ["count": 2.5]]]
    #expect(try trusting.encode(Reply(revision: 3, value: state)) == ["revision": 3, "value": state])
    // What it no longer looks for: the default encoder refuses this value, the trusting
    // one does not walk it.
    let unchecked = Reply(revision: 1, value: ["x": .double(.nan)])
    #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(unchecked) }
    #expect(try trusting.encode(unchecked).objectValue?["revision"] == 1)
    #expect(throws: EncodingError.self) { try trusting.encode(["a": Double.infinity]) }
  }

  @Test func codingPathsAndUserInfoReachTheValues() throws {
    struct Probe: Encodable {
      func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        let flag = encoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] as? String ?? "none"
        try container.encode(pathStrings(encoder.codingPath).joined(separator: "/") + " " + flag)
      }
    }
    var encoder = JSONValueEncoder()
    encoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] = "on"
    #expect(try encoder.encode(["a": [Probe(), Probe()]]) == ["a": ["a/0 on", "a/1 on"]])
  }
}
