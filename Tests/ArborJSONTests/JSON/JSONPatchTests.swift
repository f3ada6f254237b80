import ArborJSON
import Foundation
import Testing

func patch(_ text: String) throws -> JSONPatch {
  try JSONDecoder().decode(JSONPatch.self, from: Data(text.utf8))
}

/// The examples of RFC 6902, appendix A: a document, a patch, and the result (nil when
/// the patch must fail).
struct RFCExample: Sendable, CustomTestStringConvertible {
  let name: String
  let document: String
  let patch: String
  let result: String?
  var testDescription: String { name }
}

@Suite struct JSONPatchTests {
  static let appendixA: [RFCExample] = [
    RFCExample(
      name: "A.1 adding an object member", document: #"{"foo": "bar"}"#,
      patch: #"[{"op": "add", "path": "/baz", "value": "qux"}]"#, result: #"{"baz": "qux", "foo": "bar"}"#),
    RFCExample(
      name: "A.2 adding an array element", document: #"{"foo": ["bar", "baz"]}"#,
      patch: #"[{"op": "add", "path": "/foo/1", "value": "qux"}]"#, result: #"{"foo": ["bar", "qux", "baz"]}"#),
    RFCExample(
      name: "A.3 removing an object member", document: #"{"baz": "qux", "foo": "bar"}"#,
      patch: #"[{"op": "remove", "path": "/baz"}]"#, result: #"{"foo": "bar"}"#),
    RFCExample(
      name: "A.4 removing an array element", document: #"{"foo": ["bar", "qux", "baz"]}"#,
      patch: #"[{"op": "remove", "path": "/foo/1"}]"#, result: #"{"foo": ["bar", "baz"]}"#),
    RFCExample(
      name: "A.5 replacing a value", document: #"{"baz": "qux", "foo": "bar"}"#,
      patch: #"[{"op": "replace", "path": "/baz", "value": "boo"}]"#, result: #"{"baz": "boo", "foo": "bar"}"#),
    RFCExample(
      name: "A.6 moving a value", document: #"{"foo": {"bar": "baz", "waldo": "fred"}, "qux": {"corge": "grault"}}"#,
      patch: #"[{"op": "move", "from": "/foo/waldo", "path": "/qux/thud"}]"#,
      result: #"{"foo": {"bar": "baz"}, "qux": {"corge": "grault", "thud": "fred"}}"#),
    RFCExample(
      name: "A.7 moving an array element", document: #"{"foo": ["all", "grass", "cows", "eat"]}"#,
      patch: #"[{"op": "move", "from": "/foo/1", "path": "/foo/3"}]"#, result: #"{"foo": ["all", "cows", "eat", "grass"]}"#),
    RFCExample(
      name: "A.8 testing a value: success", document: #"{"baz": "qux", "foo": ["a", 2, "c"]}"#,
      patch: #"[{"op": "test", "path": "/baz", "value": "qux"}, {"op": "test", "path": "/foo/1", "value": 2}]"#,
      result: #"{"baz": "qux", "foo": ["a", 2, "c"]}"#),
    RFCExample(
      name: "A.9 testing a value: error", document: #"{"baz": "qux"}"#,
      patch: #"[{"op": "test", "path": "/baz", "value": "bar"}]"#, result: nil),
    RFCExample(
      name: "A.10 adding a nested member object", document: #"{"foo": "bar"}"#,
      patch: #"[{"op": "add", "path": "/child", "value": {"grandchild": {}}}]"#,
      result: #"{"foo": "bar", "child": {"grandchild": {}}}"#),
    RFCExample(
      name: "A.11 ignoring unrecognized elements", document: #"{"foo": "bar"}"#,
      patch: #"[{"op": "add", "path": "/baz", "value": "qux", "xyz": 123}]"#, result: #"{"foo": "bar", "baz": "qux"}"#),
    RFCExample(
      name: "A.12 adding to a nonexistent target", document: #"{"foo": "bar"}"#,
      patch: #"[{"op": "add", "path": "/baz/bat", "value": "qux"}]"#, result: nil),
    RFCExample(
      name: "A.14 ~ escape ordering", document: #"{"/": 9, "~1": 10}"#,
      patch: #"[{"op": "test", "path": "/~01", "value": 10}]"#, result: #"{"/": 9, "~1": 10}"#),
    RFCExample(
      name: "A.15 comparing strings and numbers", document: #"{"/": 9, "~1": 10}"#,
      patch: #"[{"op": "test", "path": "/~01", "value": "10"}]"#, result: nil),
    RFCExample(
      name: "A.16 adding an array value", document: #"{"foo": ["bar"]}"#,
      patch: #"[{"op": "add", "path": "/foo/-", "value": ["abc", "def"]}]"#, result: #"{"foo": ["bar", ["abc", "def"]]}"#),
  ]

  @Test(arguments: appendixA)
  func rfc6902AppendixA(example: RFCExample) throws {
    let document = try json(example.document)
    let operations = try patch(example.patch)
    if let result = example.result {
      #expect(try operations.apply(to: document) == json(result))
    } else {
      #expect(throws: JSONPatchError.self) { try operations.apply(to: document) }
    }
  }

  @Test func theDirectWriterGivesTheCodableFormByteForByte() throws {
    let patch = JSONPatch([
      .add(try JSONPointer("/a~1b/-"), ["x": 1, "y": [true, nil]]),
      .remove(try JSONPointer("/m~0n")),
      .replace(try JSONPointer("/s"), "quote \" and \\ slash"),
      .move(from: try JSONPointer("/a/0"), to: try JSONPointer("/b")),
      .copy(from: try JSONPointer("/b"), to: try JSONPointer("/c")),
      .test(try JSONPointer(""), 2.5),
    ])
    var coded: [UInt8] = []
    try JSONValueEncoder().encode(patch).writeJSON(to: &coded)
    #expect(String(decoding: patch.jsonBytes, as: UTF8.self) == String(decoding: coded, as: UTF8.self))
  }

  @Test func readingTheJSONFormDirectlyEqualsDecodingIt() throws {
    let text = #"[{"op":"add","path":"/a~1b/-","value":{"x":1}},{"op":"remove","path":"/m"},{"op":"replace","path":"/s","value":null},{"op":"move","from":"/a/0","path":"/b"},{"op":"copy","from":"/b","path":"/c"},{"op":"test","path":"","value":2.5}]"#
    let json = try JSONValue(parsing: text)
    #expect(try JSONPatch(json: json) == JSONValueDecoder().decode(JSONPatch.self, from: json))
    for (bad, reason) in [
      (#"{"op":"add"}"#, "a patch is an array"), (#"[{"op":"jump","path":"/a"}]"#, "unknown op 'jump'"),
      (#"[{"op":"add","path":"/a"}]"#, "needs a 'value'"), (#"[{"op":"move","path":"/a"}]"#, "needs a 'from' string"),
      (#"[{"op":"remove","path":"a"}]"#, "is not a JSON Pointer"), (#"[3]"#, "operation 0 is"),
    ] {
      let error = #expect(throws: JSONPatchError.self) { try JSONPatch(json: JSONValue(parsing: bad)) }
      #expect(error?.description.contains(reason) == true, "\(bad): \(String(describing: error))")
    }
  }

  @Test func applyingInPlaceEqualsApplyingToACopy() throws {
    var document: JSONValue = ["rows": .array((0..<100).map { .object(["n": .int(Int64($0))]) }), "name": "x"]
    let patch = JSONPatch([
      .replace(try JSONPointer("/rows/7/n"), 70),
      .add(try JSONPointer("/rows/0"), ["n": -1]),
      .remove(try JSONPointer("/rows/50")),
      .move(from: try JSONPointer("/name"), to: try JSONPointer("/rows/3/name")),
    ])
    let copied = try patch.apply(to: document)
    try patch.apply(to: &document)
    #expect(document == copied)
    guard case .object(let members) = document, case .array(let rows)? = members["rows"] else {
      Issue.record("not an object with rows: \(document)")
      return
    }
    #expect(rows[8] == ["n": 70], "the replaced row moved down by the insert")
  }

  @Test func aFailingPatchChangesNothingAndSaysWhichOperationFailed() throws {
    let document = try json(#"{"a": 1}"#)
    let operations = try patch(#"[{"op": "replace", "path": "/a", "value": 2}, {"op": "remove", "path": "/missing"}]"#)
    #expect(throws: JSONPatchError.operationFailed(index: 1, "remove", "nothing at '/missing'")) {
      try operations.apply(to: document)
    }
    #expect(document == (try json(#"{"a": 1}"#)))
  }

  @Test func aReplaceOfWhatIsNotThereNamesWhereTheLookUpStopped() throws {
    let document = try json(#"{"a": {"list": [1, 2]}, "n": 3}"#)
    let cases: [(String, String)] = [
      ("/missing", "nothing at '/missing'"),
      ("/a/missing/x", "nothing at '/a/missing'"),
      ("/a/list/2", "nothing at '/a/list/2'"),
      ("/a/list/01", "'01' at '/a/list/01' is not an array index"),
      ("/n/x", "'/n' is a number, which has no members"),
    ]
    for (path, reason) in cases {
      #expect(throws: JSONPatchError.operationFailed(index: 0, "replace", reason), "replace at \(path)") {
        try JSONPatch([.replace(try JSONPointer(path), 0)]).apply(to: document)
      }
    }
    // What is there is replaced in place, in an object and in an array.
    var changed = document
    try JSONPatch([.replace(try JSONPointer("/a/list/1"), 20), .replace(try JSONPointer("/n"), "x")]).apply(to: &changed)
    #expect(changed == (try json(#"{"a": {"list": [1, 20]}, "n": "x"}"#)))
  }

  @Test func malformedOperationsAreRejectedWhenDecoded() {
    #expect(throws: DecodingError.self) { try patch(#"[{"op": "frobnicate", "path": "/a"}]"#) }
    #expect(throws: DecodingError.self) { try patch(#"[{"op": "add", "path": "/a"}]"#) }
    #expect(throws: DecodingError.self) { try patch(#"[{"op": "move", "path": "/a"}]"#) }
    #expect(throws: JSONPointerError.self) { try patch(#"[{"op": "remove", "path": "a"}]"#) }
  }

  @Test func aValueCannotMoveIntoItsOwnChild() throws {
    let document = try json(#"{"a": {"b": 1}}"#)
    #expect(throws: JSONPatchError.self) { try patch(#"[{"op": "move", "from": "/a", "path": "/a/b/c"}]"#).apply(to: document) }
  }

  /// Found by fuzzing (Fuzz/Sources/patch): a move onto itself succeeded though its
  /// `from` did not exist; RFC 6902 (4.4) requires it to.
  @Test func aMoveOntoItselfNeedsItsFromToExist() throws {
    let move = try patch(#"[{"op":"move","from":"/counters/0","path":"/counters/0"}]"#)
    #expect(throws: JSONPatchError.self) { try move.apply(to: try json("3")) }
    #expect(throws: JSONPatchError.self) { try move.apply(to: try json(#"{"counters": []}"#)) }
    let document = try json(#"{"counters": [{"count": 1}]}"#)
    #expect(try move.apply(to: document) == document)
  }

  @Test func encodesAsRFC6902JSON() throws {
    let operations: JSONPatch = [
      .add(try JSONPointer("/a~1b"), [1, 2]), .remove(try JSONPointer("/c")), .move(from: try JSONPointer("/d"), to: try JSONPointer("/e")),
    ]
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    let text = String(decoding: try encoder.encode(operations), as: UTF8.self)
    #expect(text == #"[{"op":"add","path":"\/a~1b","value":[1,2]},{"op":"remove","path":"\/c"},{"from":"\/d","op":"move","path":"\/e"}]"#)
    #expect(try patch(text) == operations)
  }

  @Test func integersRoundTripExactlyAndCompareWithDoubles() throws {
    let big = try json("9007199254740993")
    #expect(big == .int(9_007_199_254_740_993))
    #expect(JSONValue.int(1) == JSONValue.double(1.0))
    #expect(JSONValue.int(1) != JSONValue.string("1"))
  }
}
