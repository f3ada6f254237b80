import ArborJSON
import Foundation
import Testing

/// A `DecodingError` reduced to what the tests compare.
struct DecodingFailure: Equatable, CustomStringConvertible {
  var kind: String
  var type: String
  var path: [String]
  var message: String

  init(kind: String, type: String = "", path: [String], message: String) {
    self.kind = kind
    self.type = type
    self.path = path
    self.message = message
  }

  init?(_ error: any Error) {
    guard let error = error as? DecodingError else { return nil }
    switch error {
    case .typeMismatch(let type, let context):
      self.init(kind: "typeMismatch", type: "\(type)", path: pathStrings(context.codingPath), message: context.debugDescription)
    case .valueNotFound(let type, let context):
      self.init(kind: "valueNotFound", type: "\(type)", path: pathStrings(context.codingPath), message: context.debugDescription)
    case .keyNotFound(let key, let context):
      self.init(kind: "keyNotFound", type: key.stringValue, path: pathStrings(context.codingPath), message: context.debugDescription)
    case .dataCorrupted(let context):
      self.init(kind: "dataCorrupted", path: pathStrings(context.codingPath), message: context.debugDescription)
    @unknown default:
      return nil
    }
  }

  var description: String { "\(kind)(\(type)) at \(path): \(message)" }
}

enum DecodingFixtures {
  struct Item: Codable, Equatable { var count: Int }
  struct Order: Codable, Equatable { var items: [Item] }
  struct Wrap<T: Codable & Equatable>: Codable, Equatable { var v: T }

  /// Two integers in an array.
  struct Pair: Decodable {
    var first: Int
    var second: Int

    init(from decoder: any Decoder) throws {
      var container = try decoder.unkeyedContainer()
      first = try container.decode(Int.self)
      second = try container.decode(Int.self)
    }
  }

  /// How `JSONValueDecoder` and `JSONDecoder` fail (nil where they succeed) on the same input.
  struct Comparison: Sendable, CustomTestStringConvertible {
    let name: String
    let outcomes: @Sendable () throws -> (ours: DecodingFailure?, foundation: DecodingFailure?)
    var testDescription: String { name }

    init<T: Decodable & SendableMetatype>(_ type: T.Type, _ text: String) {
      name = "\(T.self) from \(text)"
      outcomes = {
        let data = Data(text.utf8)
        let value = try JSONDecoder().decode(JSONValue.self, from: data)
        func outcome(_ decode: () throws -> T) -> DecodingFailure? {
          do {
            _ = try decode()
            return nil
          } catch {
            return DecodingFailure(error) ?? DecodingFailure(kind: "other", path: [], message: "\(error)")
          }
        }
        return (
          outcome { try JSONValueDecoder().decode(T.self, from: value) },
          outcome { try JSONDecoder().decode(T.self, from: data) }
        )
      }
    }
  }

  static let comparisons: [Comparison] = [
    Comparison(Order.self, #"{"items": [{"count": 1}, {"count": 2}, {"count": "three"}]}"#),
    Comparison(Order.self, #"{"items": [{"count": 1}, {}]}"#),
    Comparison(Order.self, #"{"items": [{"count": null}]}"#),
    Comparison(Order.self, #"{"items": [null]}"#),
    Comparison(Order.self, #"{"items": [3]}"#),
    Comparison(Order.self, #"{"items": {}}"#),
    Comparison(Order.self, #"{"items": null}"#),
    Comparison(Order.self, #"[]"#),
    Comparison(Wrap<Int>.self, #"{"v": true}"#),
    Comparison(Wrap<Int>.self, #"{"v": 2.0}"#),
    Comparison(Wrap<Bool>.self, #"{"v": 1}"#),
    Comparison(Wrap<String>.self, #"{"v": []}"#),
    Comparison(Wrap<Double>.self, #"{"v": null}"#),
    Comparison(Wrap<Data>.self, #"{"v": "!!!"}"#),
    Comparison(Wrap<Data>.self, #"{"v": 3}"#),
    Comparison(Wrap<Data>.self, #"{"v": null}"#),
    Comparison(Wrap<URL>.self, #"{"v": ""}"#),
    Comparison(Wrap<URL>.self, #"{"v": null}"#),
    Comparison(Wrap<Date>.self, #"{"v": "yesterday"}"#),
    Comparison(Wrap<Date>.self, #"{"v": null}"#),
    Comparison(Wrap<[Int: Int]>.self, #"{"v": {"a": 1}}"#),
    Comparison(Wrap<[String: Int]>.self, #"{"v": [1]}"#),
    Comparison(Wrap<CodingFixtures.Shape>.self, #"{"v": {"triangle": {}}}"#),
    Comparison(Wrap<CodingFixtures.Shape>.self, #"{"v": {"labeled": {"_0": "x"}}}"#),
    Comparison(Wrap<CodingFixtures.Color>.self, #"{"v": "blue"}"#),
    Comparison(Wrap<Int?>.self, #"{"v": null}"#),
    Comparison(Wrap<Int?>.self, #"{}"#),
    Comparison(Wrap<Int?>.self, #"{"v": "x"}"#),
    Comparison(Pair.self, #"[1]"#),
    Comparison([Int].self, #"[1, null]"#),
    Comparison([[Int]].self, #"[[1], [2, "x"]]"#),
    Comparison(Int.self, #"null"#),
  ]
}

@Suite struct JSONValueDecoderTests {
  @Test(arguments: CodingFixtures.all)
  func roundTripsThroughTheEncoder(fixture: Fixture) throws {
    try expectRoundTrip(fixture.value)
  }

  private func expectRoundTrip<T: Codable & Equatable>(_ value: T) throws {
    #expect(try JSONValueDecoder().decode(T.self, from: JSONValueEncoder().encode(value)) == value)
    // What JSONEncoder writes decodes too (there, whole numbers read back as integers).
    #expect(try JSONValueDecoder().decode(T.self, from: foundationJSON(value)) == value)
  }

  @Test(arguments: DecodingFixtures.comparisons)
  func failsLikeJSONDecoder(comparison: DecodingFixtures.Comparison) throws {
    let (ours, foundation) = try comparison.outcomes()
    #expect(ours == foundation)
  }

  private func failure<T: Decodable>(_ type: T.Type, from value: JSONValue) -> DecodingFailure? {
    do {
      _ = try JSONValueDecoder().decode(type, from: value)
      return nil
    } catch {
      return DecodingFailure(error)
    }
  }

  @Test func wrongTypeNamesThePathWithArrayIndexes() {
    let value: JSONValue = ["items": [["count": 1], ["count": 2], ["count": "three"]]]
    #expect(
      failure(DecodingFixtures.Order.self, from: value)
        == DecodingFailure(
          kind: "typeMismatch", type: "Int", path: ["items", "2", "count"],
          message: "Expected to decode Int but found a string instead."))
  }

  @Test func missingKey() {
    #expect(
      failure(DecodingFixtures.Order.self, from: ["items": [["count": 1], [:]]])
        == DecodingFailure(
          kind: "keyNotFound", type: "count", path: ["items", "1"],
          message: #"No value associated with key CodingKeys(stringValue: "count", intValue: nil) ("count")."#))
  }

  @Test func nullForANonOptional() {
    #expect(
      failure(DecodingFixtures.Order.self, from: ["items": [["count": nil]]])
        == DecodingFailure(
          kind: "valueNotFound", type: "Int", path: ["items", "0", "count"],
          message: "Cannot get value of type Int -- found null value instead"))
    #expect(
      failure(DecodingFixtures.Order.self, from: ["items": [nil]])
        == DecodingFailure(
          kind: "valueNotFound", type: "Dictionary<String, Any>", path: ["items", "0"],
          message: "Cannot get keyed decoding container -- found null value instead"))
  }

  @Test func integersMustFit() throws {
    #expect(
      failure(DecodingFixtures.Wrap<UInt8>.self, from: ["v": 300])
        == DecodingFailure(kind: "dataCorrupted", path: ["v"], message: "Number 300 does not fit in UInt8."))
    #expect(
      failure([UInt].self, from: [1, -1])
        == DecodingFailure(kind: "dataCorrupted", path: ["1"], message: "Number -1 does not fit in UInt."))
    #expect(
      failure(DecodingFixtures.Wrap<Int>.self, from: ["v": 1.5])
        == DecodingFailure(kind: "dataCorrupted", path: ["v"], message: "Number 1.5 does not fit in Int."))
    #expect(
      failure(Int64.self, from: .double(1e19))
        == DecodingFailure(kind: "dataCorrupted", path: [], message: "Number 1e+19 does not fit in Int64."))
    #expect(try JSONValueDecoder().decode(Int.self, from: 2.0) == 2)
    #expect(try JSONValueDecoder().decode(UInt64.self, from: .int(.max)) == UInt64(Int64.max))
    #expect(
      failure(Float.self, from: 1e300)
        == DecodingFailure(kind: "dataCorrupted", path: [], message: "Number 1e+300 does not fit in Float."))
  }

  @Test func badBase64() {
    #expect(
      failure(DecodingFixtures.Wrap<[Data]>.self, from: ["v": ["AQID", "not base64!"]])
        == DecodingFailure(kind: "dataCorrupted", path: ["v", "1"], message: "Encountered Data is not valid Base64."))
  }

  @Test func decimalsDatesURLsAndData() throws {
    let decoder = JSONValueDecoder()
    #expect(try decoder.decode(Decimal.self, from: 3.25) == Decimal(string: "3.25"))
    #expect(try decoder.decode(Decimal.self, from: 7) == Decimal(7))
    #expect(try decoder.decode(Date.self, from: 60) == Date(timeIntervalSinceReferenceDate: 60))
    #expect(try decoder.decode(URL.self, from: "https://example.com/x") == URL(string: "https://example.com/x"))
    #expect(try decoder.decode(Data.self, from: "AQID/w==") == Data([1, 2, 3, 255]))
    #expect(
      failure(Decimal.self, from: "3")
        == DecodingFailure(
          kind: "typeMismatch", type: "Decimal", path: [], message: "Expected to decode Decimal but found a string instead."))
  }

  @Test func optionalsAcceptMissingAndNull() throws {
    let decoder = JSONValueDecoder()
    #expect(try decoder.decode(CodingFixtures.Address.self, from: ["street": "s"]) == .init(street: "s", zip: nil))
    #expect(try decoder.decode(CodingFixtures.Address.self, from: ["street": "s", "zip": nil]) == .init(street: "s", zip: nil))
    #expect(
      failure(CodingFixtures.Address.self, from: ["street": "s", "zip": 5])
        == DecodingFailure(
          kind: "typeMismatch", type: "String", path: ["zip"], message: "Expected to decode String but found number instead."))
  }

  @Test func codingPathsAndUserInfoReachTheValues() throws {
    struct Probe: Decodable, Equatable {
      var text: String
      init(text: String) { self.text = text }
      init(from decoder: any Decoder) throws {
        let flag = decoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] as? String ?? "none"
        text = pathStrings(decoder.codingPath).joined(separator: "/") + " " + flag
      }
    }
    var decoder = JSONValueDecoder()
    decoder.userInfo[CodingUserInfoKey(rawValue: "flag")!] = "on"
    let decoded = try decoder.decode([String: [Probe]].self, from: ["a": [nil, 1]])
    #expect(decoded == ["a": [Probe(text: "a/0 on"), Probe(text: "a/1 on")]])
  }
}
