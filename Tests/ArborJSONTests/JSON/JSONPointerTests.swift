import ArborJSON
import Foundation
import Testing

func json(_ text: String) throws -> JSONValue {
  try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
}

@Suite struct JSONPointerTests {
  /// The document of RFC 6901, section 5.
  static let document = #"""
    {"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}
    """#

  static let examples: [(String, String)] = [
    ("/foo", #"["bar", "baz"]"#),
    ("/foo/0", #""bar""#),
    ("/", "0"),
    ("/a~1b", "1"),
    ("/c%d", "2"),
    ("/e^f", "3"),
    ("/g|h", "4"),
    (#"/i\j"#, "5"),
    (#"/k"l"#, "6"),
    ("/ ", "7"),
    ("/m~0n", "8"),
  ]

  @Test func plainPointersAreSlicedIntoTheirTokens() throws {
    #expect(try JSONPointer("/").tokens == [""])
    #expect(try JSONPointer("//").tokens == ["", ""])
    #expect(try JSONPointer("/a/").tokens == ["a", ""])
    #expect(try JSONPointer("/rows/0/count").tokens == ["rows", "0", "count"])
    #expect(try JSONPointer("/é/ü").tokens == ["é", "ü"])
  }

  @Test func arrayIndicesAreDigitsWithoutLeadingZeros() throws {
    let list: JSONValue = [10, 11, 12]
    #expect(try JSONPointer("/0").resolve(in: list) == 10)
    #expect(try JSONPointer("/2").resolve(in: list) == 12)
    for token in ["01", "00", "-1", "+1", "1a", "", "99999999999999999999999"] {
      #expect(throws: JSONPointerError.invalidIndex(JSONPointer(tokens: [token]), token)) { try JSONPointer(tokens: [token]).resolve(in: list) }
    }
    #expect(throws: JSONPointerError.notFound(JSONPointer(tokens: ["3"]))) { try JSONPointer("/3").resolve(in: list) }
  }

  @Test func theWholeDocument() throws {
    let document = try json(Self.document)
    #expect(try JSONPointer("").resolve(in: document) == document)
  }

  @Test(arguments: examples)
  func rfc6901Examples(pointer: String, expected: String) throws {
    let document = try json(Self.document)
    #expect(try JSONPointer(pointer).resolve(in: document) == json(expected))
  }

  @Test(arguments: ["", "/foo", "/a~1b", "/m~0n", "/~01", "/ "])
  func roundTripsThroughItsDescription(text: String) throws {
    #expect(try JSONPointer(text).description == text)
  }

  @Test func escapesAreUndoneInOrder() throws {
    #expect(try JSONPointer("/~01").tokens == ["~1"])
    // Without escapes (the sliced fast path): empty tokens, a trailing slash, non-ASCII.
    #expect(try JSONPointer("/").tokens == [""])
    #expect(try JSONPointer("/a//b").tokens == ["a", "", "b"])
    #expect(try JSONPointer("/a/").tokens == ["a", ""])
    #expect(try JSONPointer("/counters/0/counter").tokens == ["counters", "0", "counter"])
    #expect(try JSONPointer("/héllo/🌳/a long token past the small-string size").tokens == ["héllo", "🌳", "a long token past the small-string size"])
    // Both paths agree where escapes appear in some tokens only.
    #expect(try JSONPointer("/a~1b/c").tokens == ["a/b", "c"])
    #expect(try JSONPointer("/~10").tokens == ["/0"])
  }

  /// Tokens with nothing to escape are written as they are (the fast path), multi-byte
  /// scalars included; only `~` and `/` change, wherever they stand.
  @Test func onlyTildeAndSlashAreEscapedWhateverTheTokenHolds() throws {
    let tokens = ["counters", "0", "température ✓", "日本", "~", "/", "a~b/c", "é/", "~~//"]
    let pointer = JSONPointer(tokens: tokens)
    #expect(pointer.description == "/counters/0/température ✓/日本/~0/~1/a~0b~1c/é~1/~0~0~1~1")
    #expect(try JSONPointer(pointer.description).tokens == tokens)
  }

  @Test func malformedPointersAreRejectedWithTheReason() {
    #expect(throws: JSONPointerError.syntax("foo", "a pointer must be empty or start with '/'")) { try JSONPointer("foo") }
    #expect(throws: JSONPointerError.syntax("/a~2", "'~' must be followed by '0' or '1'")) { try JSONPointer("/a~2") }
    #expect(throws: JSONPointerError.syntax("/a~", "'~' must be followed by '0' or '1'")) { try JSONPointer("/a~") }
  }

  @Test func resolvingErrorsNameThePlace() throws {
    let document = try json(Self.document)
    #expect(throws: JSONPointerError.notFound(try JSONPointer("/nope"))) { try JSONPointer("/nope").resolve(in: document) }
    #expect(throws: JSONPointerError.notFound(try JSONPointer("/foo/2"))) { try JSONPointer("/foo/2").resolve(in: document) }
    #expect(throws: JSONPointerError.invalidIndex(try JSONPointer("/foo/01"), "01")) { try JSONPointer("/foo/01").resolve(in: document) }
    #expect(throws: JSONPointerError.invalidIndex(try JSONPointer("/foo/-"), "-")) { try JSONPointer("/foo/-").resolve(in: document) }
    #expect(throws: JSONPointerError.notAContainer(try JSONPointer("/a~1b"), "number")) { try JSONPointer("/a~1b/x").resolve(in: document) }
    #expect(JSONPointerError.notFound(try JSONPointer("/foo/2")).description == "nothing at '/foo/2'")
  }
}

@Suite struct ModelIDPointerTests {
  let state: JSONValue = [
    "id": "root",
    "counters": [["id": "c0", "count": 1], ["id": "c1", "count": 2, "nested": ["id": "n"]]],
    "keyed": ["a/b": ["id": "k", "note": "~"]],
    "tags": ["id"],
  ]

  @Test func findsModelsByIDWithEscapedPaths() throws {
    #expect(state.pointer(toObjectWithID: "root")?.description == "")
    #expect(state.pointer(toObjectWithID: "c1")?.description == "/counters/1")
    #expect(state.pointer(toObjectWithID: "n")?.description == "/counters/1/nested")
    let keyed = try #require(state.pointer(toObjectWithID: "k"))
    #expect(keyed.description == "/keyed/a~1b")
    #expect(try keyed.resolve(in: state) == ["id": "k", "note": "~"])
    #expect(state.pointer(toObjectWithID: "missing") == nil)
    #expect(state.pointer(toObjectWithID: "id") == nil, "a string in an array is not an object's id")
  }
}
