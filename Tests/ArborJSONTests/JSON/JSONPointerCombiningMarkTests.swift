import ArborJSON
import Testing

/// A token that begins with a combining mark (U+0301 here) after a `/`: Swift makes one
/// character of the two, so pointers read, written and escaped character by character lost
/// the `/`. Found by the `tree` fuzz target: a dictionary key `"\u{301}\t…"` made a path
/// watcher's patch `/\u{301}\t…` unreadable ("a pointer must be empty or start with '/'"),
/// and a key `"a/\u{301}"` was written unescaped into a patch's JSON text, which a standby
/// (or the journal read back) took for two tokens.
@Suite struct JSONPointerCombiningMarkTests {
  @Test func aTokenBeginningWithACombiningMarkReads() throws {
    #expect(try JSONPointer("/\u{301}x").tokens == ["\u{301}x"])
    #expect(try JSONPointer("/byKey/\u{301}\t").tokens == ["byKey", "\u{301}\t"])
    // With an escape elsewhere (the slower path).
    #expect(try JSONPointer("/a~1b/\u{301}x").tokens == ["a/b", "\u{301}x"])
    #expect(try JSONPointer("/a~0/\u{301}").tokens == ["a~", "\u{301}"])
  }

  @Test func aSlashBeforeACombiningMarkIsEscaped() throws {
    let pointer = JSONPointer(tokens: ["byKey", "a/\u{301}", "~\u{301}"])
    #expect(pointer.description == "/byKey/a~1\u{301}/~0\u{301}")
    #expect(try JSONPointer(pointer.description) == pointer)
  }

  /// The patch's JSON text, as the journal keeps it and a standby applies it.
  @Test func aPatchsTextKeepsItsTokens() throws {
    let patch = JSONPatch([.add(JSONPointer(tokens: ["byKey", "a/\u{301}"]), 1), .remove(JSONPointer(tokens: ["\u{301}k"]))])
    let reread = try JSONPatch(json: JSONValue(parsing: patch.jsonBytes))
    #expect(reread == patch)
    var document: JSONValue = ["byKey": [:], "\u{301}k": 2]
    try reread.apply(to: &document)
    #expect(document == ["byKey": ["a/\u{301}": 1]])
  }
}
