import ArborJSON
import Testing

@Suite struct JSONKnownMembersTests {
  static let names = JSONMemberNames(["a", "bb", "ab", "a-name-longer-than-8", "a-name-longer-than-9"])

  func read(_ text: String) -> [Int: JSONValue]? {
    var found: [Int: JSONValue] = [:]
    let read = JSONValue.readKnownMembers(of: Array(text.utf8), names: Self.names) { name, value in found[name] = value }
    return read ? found : nil
  }

  @Test func knownMembersAreHandedOverByPosition() {
    #expect(read(#"{"ab":[1],"a":{"x":null},"bb":"s"}"#) == [2: [1], 0: ["x": nil], 1: "s"])
    #expect(read(#" { "a" : 1 } "#) == [0: 1])
    #expect(read(#"{"a-name-longer-than-9":1,"a-name-longer-than-8":2}"#) == [4: 1, 3: 2])
  }

  @Test func anythingElseIsLeftToTheGeneralReader() {
    for text in [
      #"{}"#, #"[]"#, #"1"#, #"{"c":1}"#, #"{"a":1,"a":2}"#, #"{"\u0061":1}"#, #"{"a":1,}"#, #"{"a":1}{"#,
      #"{"a":1"#, #"{"a" 1}"#, #"{"a":}"#, #"{"b":1}"#, #"{"abc":1}"#, "", #"{"a-name-longer-than-7":1}"#, #"{"a-name-longer-than-":1}"#, #"{"a":[1,]}"#,
    ] {
      #expect(read(text) == nil, "\(text)")
    }
  }

  @Test func theDepthLimitCountsTheObjectItself() {
    let text = Array(#"{"a":[[1]]}"#.utf8)
    #expect(!JSONValue.readKnownMembers(of: text, names: Self.names, maxDepth: 2) { _, _ in })
    #expect(JSONValue.readKnownMembers(of: text, names: Self.names, maxDepth: 3) { _, _ in })
  }
}
