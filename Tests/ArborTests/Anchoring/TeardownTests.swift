import Arbor
import ArborTesting
import Testing

/// A `withAnchor()` tree is torn down when its root is no longer referenced, and a model
/// that outlives its parent never reaches freed memory.
@Suite struct TeardownTests {
  @Test func aWithAnchorTreeIsTornDownWhenItsRootGoes() async throws {
    let log = EventLog()
    var root: Branch? = Branch(name: "root", leaves: [Leaf(label: "a", log: log), Leaf(label: "b", log: log)], log: log)
      .withAnchor()
    let kept = root!.leaves[1]
    let events = DeadlineIterator(kept.node.event(ofType: String.self))
    #expect(kept.lifetime == .anchored)
    #expect(log.all.contains("activate a"))
    #expect(!log.all.contains("cancel a"))

    root = nil  // the last reference to the root

    #expect(kept.lifetime == .destructed, "the children are destructed with their root")
    #expect(log.all.contains("cancel a") && log.all.contains("cancel b"), "and deactivated: \(log.all)")
    // The kept child reaches no freed parent: it has no path, and what it sends stays with it.
    #expect(kept.node.path == nil)
    kept.node.send("still here")
    #expect(try await events.next("the event sent by the kept model to itself") == "still here")
    kept.value = 3
    #expect(kept.value == 3, "a destructed model keeps its own state")
  }

  @Test func manyTreesComeAndGoWithoutReachingFreedMemory() async {
    // Under AddressSanitizer (`make test-asan`) a read of a freed parent would stop here.
    let log = EventLog()
    var survivors: [Leaf] = []
    for round in 0..<200 {
      let root = Forest(branches: [Branch(name: "b\(round)", leaves: [Leaf(value: round, log: log)])]).withAnchor()
      survivors.append(root.branches[0].leaves[0])
      if round % 20 == 0 { await Task.yield() }
    }
    for leaf in survivors {
      #expect(leaf.node.path == nil)
      leaf.node.send(1)
      leaf.value += 1
    }
    #expect(survivors.allSatisfy { $0.lifetime == .destructed })
  }
}
