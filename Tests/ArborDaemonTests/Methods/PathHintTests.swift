import ArborJSON
@testable import ArborDaemon
import Testing

/// What is there instead of a path that names nothing.
@Suite struct PathHintTests {
  let state: JSONValue = [
    "counters": [["counter": ["count": 3, "id": "a"]]], "factPrompt": .null, "id": "r", "empty": [], "none": [:],
  ]

  @Test(arguments: [
    ("/counters/9/counter", "/counters has 1 element (0)"),
    ("/counters/x", "'x' is not an index: /counters has 1 element (0)"),
    ("/countrs/0", "did you mean '/counters/0'? (/ has counters, empty, factPrompt, id, none)"),
    ("/counters/0/counter/count/more", "/counters/0/counter/count is a number, with nothing inside"),
    ("/empty/0", "/empty is an empty array"),
    ("/none/a", "/none is an empty object"),
    ("/nothing", "/ has counters, empty, factPrompt, id, none"),
  ])
  func aMissingPathSaysWhatIsThere(path: String, says: String) throws {
    #expect(PathHint.describe(missing: try JSONPointer(path), in: state) == says)
  }

  @Test func aPathThatResolvesHasNoHint() throws {
    #expect(PathHint.describe(missing: try JSONPointer("/counters/0/counter/count"), in: state) == nil)
  }

  @Test func manyKeysAreCut() throws {
    let wide = JSONValue.object(Dictionary(uniqueKeysWithValues: (0..<20).map { ("key\($0 + 10)", JSONValue.int(Int64($0))) }))
    let hint = try #require(PathHint.describe(missing: try JSONPointer("/zzz"), in: wide))
    #expect(hint.hasSuffix(", … (20 keys)"), "\(hint)")
  }
}
