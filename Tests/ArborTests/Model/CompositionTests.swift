import Arbor
import IdentifiedCollections
import Testing

@Suite struct CompositionTests {
  @Test func inlineOptionalAndArrayChildrenAreAnchoredWithPaths() {
    let (forest, anchor) = Forest(branches: [Branch(name: "a", leaves: [Leaf(), Leaf()], extra: Leaf())]).andAnchor()
    let branch = forest.branches[0]
    #expect(branch.node.path?.description == "/branches/0")
    #expect(branch.leaves[1].node.path?.description == "/branches/0/leaves/1")
    #expect(branch.extra?.node.path?.description == "/branches/0/extra")
    #expect(branch.leaves.allSatisfy { $0.lifetime == .anchored })
    _ = anchor
  }

  @Test func dictionaryChildrenAreAddressedByKey() {
    let (forest, anchor) = Forest().andAnchor()
    let leaf = Leaf(value: 1)
    forest.keyed["a/b"] = leaf
    #expect(leaf.lifetime == .anchored)
    #expect(leaf.node.path?.description == "/keyed/a~1b")
    forest.keyed["a/b"] = nil
    #expect(leaf.lifetime == .destructed)
    _ = anchor
  }

  @Test func identifiedArrayChildren() {
    let (forest, anchor) = Forest().andAnchor()
    let first = Leaf(value: 1)
    let second = Leaf(value: 2)
    forest.identified.append(first)
    forest.identified.append(second)
    #expect(second.node.path?.description == "/identified/1")
    forest.identified.remove(id: first.id)
    #expect(first.lifetime == .destructed)
    #expect(second.node.path?.description == "/identified/0")
    #expect(forest.identified[id: second.id]?.value == 2)
    _ = anchor
  }

  @Test func enumContainersFollowCodableLayout() {
    let (navigator, anchor) = Navigator().andAnchor()
    let detail = Leaf(value: 1)
    navigator.destination = .detail(detail)
    #expect(detail.lifetime == .anchored)
    #expect(detail.node.path?.description == "/destination/detail/_0")
    let first = Leaf()
    let second = Leaf()
    navigator.destination = .pair(first, second: second)
    #expect(detail.lifetime == .destructed)
    #expect(second.node.path?.description == "/destination/pair/second")
    #expect(first.node.path?.description == "/destination/pair/_0")
    _ = anchor
  }

  @Test func genericStructContainers() {
    let (navigator, anchor) = Navigator().andAnchor()
    let item = Leaf(value: 3)
    navigator.page = Paginated(items: [Leaf(), item], currentPage: 1)
    #expect(item.lifetime == .anchored)
    #expect(item.node.path?.description == "/page/items/1")
    navigator.page.items.removeAll()
    #expect(item.lifetime == .destructed)
    _ = anchor
  }

  @Test func insertingInTheMiddleShiftsThePathsOfLaterSiblings() {
    let (branch, anchor) = Branch(name: "r").andAnchor()
    let a = Leaf(label: "a")
    let c = Leaf(label: "c")
    branch.leaves = [a, c]
    branch.leaves.insert(Leaf(label: "b"), at: 1)
    #expect(c.node.path?.description == "/leaves/2")
    branch.leaves.remove(at: 0)
    #expect(c.node.path?.description == "/leaves/1")
    branch.leaves.reverse()
    #expect(c.node.path?.description == "/leaves/0")
    _ = anchor
  }
}
