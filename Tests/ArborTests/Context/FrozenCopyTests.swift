import Arbor
import Testing

@Suite struct FrozenCopyTests {
  @Test func aFrozenCopyKeepsTheStateItWasTakenWith() {
    let (leaf, anchor) = Leaf(value: 1).andAnchor()
    let frozen = leaf.frozenCopy
    leaf.value = 2
    #expect(frozen.value == 1)
    #expect(frozen.lifetime == .frozenCopy)
    #expect(frozen.id == leaf.id)
    _ = anchor
  }

  @Test func writingToAFrozenCopyIsReportedNotACrash() {
    let leaf = Leaf(value: 1).withAnchor()
    let frozen = leaf.frozenCopy
    withKnownIssue {
      frozen.value = 5
    }
    withKnownIssue {
      frozen.value += 5
    }
    #expect(frozen.value == 1)
    #expect(leaf.value == 1)
  }

  @Test func aFrozenCopyCannotJoinATree() {
    let branch = Branch(name: "r").withAnchor()
    let frozen = Leaf(value: 1).frozenCopy
    withKnownIssue {
      branch.extra = frozen
    }
    #expect(frozen.lifetime == .frozenCopy)
  }
}
