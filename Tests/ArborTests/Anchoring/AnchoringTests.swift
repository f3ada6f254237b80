@testable import Arbor
import Dependencies
import Foundation
import Testing

@Suite struct AnchoringTests {
  @Test func lifeStagesFromInitialToDestructed() {
    let leaf = Leaf(label: "a")
    #expect(leaf.lifetime == .initial)
    let (branch, anchor) = Branch(name: "root").andAnchor()
    #expect(branch.lifetime == .anchored)
    branch.leaves.append(leaf)
    #expect(leaf.lifetime == .anchored)
    branch.leaves.removeAll()
    #expect(leaf.lifetime == .destructed)
    _ = anchor
  }

  @Test func withAnchorReturnsTheAnchoredModel() {
    let model = Branch(name: "r", leaves: [Leaf(label: "x")]).withAnchor()
    #expect(model.lifetime == .anchored)
    #expect(model.leaves[0].lifetime == .anchored)
  }

  @Test func withAnchorAppliesDependencyOverrides() {
    let fixed = Date(timeIntervalSince1970: 42)
    let model = Leaf().withAnchor { $0.date = .constant(fixed) }
    let tree = try! #require(model._$modelContext.tree)
    #expect(tree.dependencies.date.now == fixed)
  }

  @Test func releasingTheAnchorTearsTheTreeDown() {
    let log = EventLog()
    var leaf: Leaf?
    do {
      let (branch, anchor) = Branch(name: "root", leaves: [Leaf(label: "a", log: log)], log: log).andAnchor()
      leaf = branch.leaves[0]
      #expect(anchor.revision == 0)
    }
    #expect(leaf?.lifetime == .destructed)
    #expect(log.all == ["activate root", "activate a", "cancel root", "cancel a"])
  }

  @Test func readsOfADestructedModelReturnItsLastState() {
    let (branch, anchor) = Branch(name: "root", leaves: [Leaf(value: 9)]).andAnchor()
    let leaf = branch.leaves[0]
    branch.leaves = []
    #expect(leaf.lifetime == .destructed)
    #expect(leaf.value == 9)
    leaf.value = 10
    #expect(leaf.value == 10)
    #expect(anchor.revision == 1, "writes to a removed model are not changes of the tree")
  }

  @Test func aRemovedModelCanBeAddedAgain() {
    let log = EventLog()
    let (branch, anchor) = Branch(name: "root").andAnchor()
    let leaf = Leaf(label: "a", log: log)
    branch.extra = leaf
    branch.extra = nil
    branch.leaves.append(leaf)
    #expect(leaf.lifetime == .anchored)
    #expect(log.all == ["activate a", "cancel a", "activate a"])
    _ = anchor
  }

  @Test func anchoringAModelTwiceIsReported() {
    let leaf = Leaf().withAnchor()
    withKnownIssue {
      _ = leaf.withAnchor()
    }
  }

  @Test func aModelCannotMoveBetweenTrees() {
    let first = Branch(name: "first").withAnchor()
    let second = Branch(name: "second").withAnchor()
    let leaf = Leaf()
    first.leaves.append(leaf)
    withKnownIssue {
      second.leaves.append(leaf)
    }
    #expect(leaf.node.path == ModelPath([.property("leaves"), .index(0)]))
  }
}
