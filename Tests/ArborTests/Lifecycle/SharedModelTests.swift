import Arbor
import Testing

@Suite struct SharedModelTests {
  @Test func aSharedModelIsActivatedOnceAndDeactivatedWithItsLastReference() {
    let log = EventLog()
    let shared = Leaf(label: "shared", log: log)
    let (forest, anchor) = Forest().andAnchor()
    forest.branches = [Branch(name: "a"), Branch(name: "b")]
    forest.branches[0].leaves.append(shared)
    forest.branches[1].extra = shared
    #expect(log.all == ["activate shared"])

    forest.branches[0].leaves.removeAll()
    #expect(shared.lifetime == .anchored)
    #expect(log.all == ["activate shared"])
    #expect(shared.node.path?.description == "/branches/1/extra")

    forest.branches[1].extra = nil
    #expect(shared.lifetime == .destructed)
    #expect(log.all == ["activate shared", "cancel shared"])
    _ = anchor
  }

  @Test func aSharedModelInOneArrayTwice() {
    let log = EventLog()
    let shared = Leaf(label: "twice", log: log)
    let (branch, anchor) = Branch(name: "r").andAnchor()
    branch.leaves = [shared, shared]
    #expect(log.all == ["activate twice"])
    branch.leaves.removeLast()
    #expect(shared.lifetime == .anchored)
    branch.leaves.removeLast()
    #expect(shared.lifetime == .destructed)
    _ = anchor
  }
}
