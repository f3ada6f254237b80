import Arbor
import Testing

@Suite struct ActivationTests {
  @Test func parentsActivateBeforeChildren() {
    let log = EventLog()
    let tree = Branch(
      name: "root",
      leaves: [Leaf(label: "a", log: log), Leaf(label: "b", log: log)],
      extra: Leaf(label: "c", log: log),
      log: log
    )
    let (_, anchor) = tree.andAnchor()
    #expect(log.all == ["activate root", "activate a", "activate b", "activate c"])
    _ = anchor
  }

  @Test func modelsAddedLaterAreActivatedOnce() {
    let log = EventLog()
    let (branch, anchor) = Branch(name: "root").andAnchor()
    branch.leaves.append(Leaf(label: "a", log: log))
    branch.leaves.append(Leaf(label: "b", log: log))
    #expect(log.all == ["activate a", "activate b"])
    _ = anchor
  }

  @Test func deactivationCancelsAParentsWorkBeforeItsChildren() {
    let log = EventLog()
    let (forest, anchor) = Forest().andAnchor()
    forest.branches.append(Branch(name: "b", leaves: [Leaf(label: "l1", log: log), Leaf(label: "l2", log: log)], log: log))
    log.clear()
    forest.branches.removeAll()
    #expect(log.all == ["cancel b", "cancel l1", "cancel l2"])
    _ = anchor
  }

  @Test func withActivationIsAdditiveAndInOrder() {
    let log = EventLog()
    let leaf = Leaf(label: "x", log: log)
      .withActivation { _ in log.append("first") }
      .withActivation { model in log.append("second \(model.label)") }
    let (_, anchor) = leaf.andAnchor()
    #expect(log.all == ["activate x", "first", "second x"])
    _ = anchor
  }

  @Test func onActivateCanWriteState() {
    let (model, anchor) = Branch(name: "r").withActivation { $0.leaves.append(Leaf(value: 1)) }.andAnchor()
    #expect(model.leaves.count == 1)
    #expect(model.leaves[0].lifetime == .anchored)
    #expect(anchor.revision == 1)
  }

  @Test func aModelMovedWithinATransactionStaysActive() {
    let log = EventLog()
    let (forest, anchor) = Forest().andAnchor()
    forest.branches = [Branch(name: "a"), Branch(name: "b")]
    let leaf = Leaf(label: "moving", log: log)
    forest.branches[0].leaves.append(leaf)
    forest.node.transaction {
      forest.branches[0].leaves.removeAll()
      forest.branches[1].leaves.append(leaf)
    }
    #expect(log.all == ["activate moving"])
    #expect(leaf.lifetime == .anchored)
    #expect(leaf.node.path?.description == "/branches/1/leaves/0")
    _ = anchor
  }
}
