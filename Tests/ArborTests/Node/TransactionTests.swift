import Arbor
import Synchronization
import Testing

@Suite struct TransactionTests {
  @Test func otherThreadsNeverSeeAHalfDoneTransaction() async {
    let leaf = Leaf(value: 0, label: "0").withAnchor()
    let torn = Tally()
    let done = Tally()
    await withTaskGroup(of: Void.self) { group in
      group.addTask {
        for value in 1...2_000 {
          leaf.node.transaction {
            leaf.value = value
            leaf.label = String(value)
          }
        }
        done.raise()
      }
      group.addTask {
        while !done.isRaised {
          let (value, label) = leaf.node.transaction { (leaf.value, leaf.label) }
          if String(value) != label { torn.add() }
          await Task.yield()  // a spinning reader must not keep the writer off the pool
        }
      }
    }
    #expect(torn.value == 0)
  }

  @Test func transactionsNest() {
    let (leaf, anchor) = Leaf().andAnchor()
    leaf.node.transaction {
      leaf.value = 1
      leaf.node.transaction { leaf.label = "inner" }
      #expect(anchor.revision == 0, "nothing commits before the outermost transaction ends")
    }
    #expect(anchor.revision == 1)
  }

  @Test func returnsTheBodysResultAndRethrows() {
    struct Failure: Error {}
    let (leaf, anchor) = Leaf().andAnchor()
    let result = leaf.node.transaction { leaf.value + 41 }
    #expect(result == 41)
    #expect(throws: Failure.self) {
      try leaf.node.transaction {
        leaf.value = 7
        throw Failure()
      }
    }
    #expect(leaf.value == 7, "writes are not rolled back")
    #expect(anchor.revision == 1)
  }
}
