import Arbor
import ArborTesting
import Synchronization
import Testing

@Suite struct TransactionTests {
  @Test func otherThreadsNeverSeeAHalfDoneTransaction() async throws {
    let leaf = Leaf(value: 0, label: "0").withAnchor()
    let writes = 2_000
    let torn = Tally()
    let reads = Tally()
    let readsDuringTheWrites = Tally()
    let done = Tally()
    let written = Tally()
    // The deadline is about the transactions (each is a step), not the clock: the writer
    // and the reader take turns on a pool that the rest of the parallel run shares.
    try await withProgressDeadline("2,000 transactions with reads in between", progress: { written.value }) {
      await withTaskGroup(of: Void.self) { group in
        group.addTask {
          for value in 1...writes {
            leaf.node.transaction {
              leaf.value = value
              leaf.label = String(value)
            }
            written.add()
            // Every 100 writes, wait for the reader to read once more, so that reads do
            // happen between writes (the reader might otherwise only start once all is done).
            if value % 100 == 0 {
              let before = reads.value
              while reads.value == before && !Task.isCancelled { await Task.yield() }
            }
          }
          done.raise()
        }
        group.addTask {
          while !done.isRaised && !Task.isCancelled {
            let (value, label) = leaf.node.transaction { (leaf.value, leaf.label) }
            if String(value) != label { torn.add() }
            if value > 0 && value < writes { readsDuringTheWrites.add() }
            reads.add()
            await Task.yield()  // a spinning reader must not keep the writer off the pool
          }
        }
      }
    }
    #expect(torn.value == 0)
    #expect(readsDuringTheWrites.value >= writes / 100 - 1, "the reader read while the writer wrote")
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
