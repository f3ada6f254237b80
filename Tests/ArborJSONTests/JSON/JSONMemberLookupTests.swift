import ArborJSON
import Testing

/// `member(_:)` compares names in a small object and hashes in a larger one: either way it
/// finds what the dictionary's own subscript finds.
@Suite struct JSONMemberLookupTests {
  static let names = [
    "", "a", "id", "intent", "target", "params", "wait", "intentX", "tárget", "🌳", "a fifteen-byte!", "a name longer than fifteen bytes",
    "a name longer than fifteen bytez",
  ]

  @Test(arguments: 0...13)
  func findsWhatTheSubscriptFinds(size: Int) {
    var generator = SystemRandomNumberGenerator()
    for _ in 0..<50 {
      var object: [String: JSONValue] = [:]
      for name in Self.names.shuffled(using: &generator).prefix(size) { object[name] = .int(Int64(name.utf8.count)) }
      for name in Self.names + ["absent", "a name longer than fifteen bytes, and absent"] {
        #expect(object.member(name) == object[name], "\(name) in \(object.keys.sorted())")
        #expect(object.memberIndex(name).map { object[$0].key } == object.index(forKey: name).map { object[$0].key })
      }
    }
  }
}
