import Arbor
import ArborJSON
import ArborTesting
import Testing

/// `state(at:)` reads the value at a path by encoding only the deepest model on it: what
/// it returns must be what the whole state holds there, for every path of a tree.
@Suite struct StateAtPathTests {
  /// Every pointer into `value`, the root included.
  static func pointers(in value: JSONValue, at base: [String] = []) -> [JSONPointer] {
    var found = [JSONPointer(tokens: base)]
    switch value {
    case .object(let members):
      for (key, member) in members { found += pointers(in: member, at: base + [key]) }
    case .array(let items):
      for (index, item) in items.enumerated() { found += pointers(in: item, at: base + [String(index)]) }
    default: break
    }
    return found
  }

  @Test func everyPathReadsWhatTheWholeStateHoldsThere() throws {
    let branches = [
      Branch(name: "a", leaves: [Leaf(value: 1, label: "x"), Leaf(value: 2)]), Branch(name: "b", leaves: []),
      Branch(name: "c", leaves: [Leaf(value: 3, label: "y")]),
    ]
    let (forest, anchor) = Forest(branches: branches, keyed: ["k": Leaf(value: 4), "a/b": Leaf(value: 5)], identified: [Leaf(value: 6)]).andAnchor()
    forest.branches[2].leaves[0].value = 30
    let whole = try anchor.state()
    let paths = Self.pointers(in: whole.value)
    #expect(paths.count > 30, "the tree has paths at every depth: \(paths.count)")
    for path in paths {
      let read = try anchor.state(at: path)
      #expect(read.revision == whole.revision)
      #expect(read.value == (try path.resolve(in: whole.value)), "at \(path)")
    }
  }

  @Test func aPathThatNamesNothingReadsNil() throws {
    let (_, anchor) = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 1)])]).andAnchor()
    for text in ["/nothing", "/branches/1", "/branches/0/leaves/0/value/more", "/branches/x", "/keyed/missing", "/branches/0/leaves/7/value"] {
      #expect(try anchor.state(at: JSONPointer(text)).value == nil, "\(text)")
    }
  }

  @Test func aWriteIsSeenAtItsPathWithItsRevision() throws {
    let (forest, anchor) = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 1)])]).andAnchor()
    forest.branches[0].leaves[0].value = 9
    let read = try anchor.state(at: JSONPointer("/branches/0/leaves/0/value"))
    #expect(read.value == 9 && read.revision == anchor.revision)
  }
}
