import Arbor
import ArborTesting
import Testing

/// `observeAnyModification()`: one emission per transaction that changed the model or a
/// descendant, none for changes elsewhere.
@Suite struct ObserveAnyModificationTests {
  @Test func itEmitsForTheModelAndItsDescendantsOncePerTransaction() async throws {
    let root = Branch(name: "root", leaves: [Leaf(value: 1)], extra: Leaf(value: 9)).withAnchor()
    let leaf = root.leaves[0]
    let extra = try #require(root.extra)
    let modifications = DeadlineIterator(leaf.observeAnyModification())
    let all = DeadlineIterator(root.observeAnyModification())
    leaf.value = 2
    try await modifications.next("the leaf's own change")
    try await all.next("the root sees its descendant's change")
    // A transaction of several writes is one emission; a change elsewhere is none.
    extra.value = 10
    try await all.next("the root sees the other leaf")
    leaf.node.transaction {
      leaf.value = 3
      leaf.label = "three"
    }
    try await modifications.next("one emission for the transaction")
    try await all.next("the root's emission for the transaction")
    // Nothing more is waiting for the leaf: a marker change after the elsewhere change
    // comes next, not a second emission of the transaction.
    extra.value = 11
    try await all.next("the root sees the marker")
    leaf.label = "marker"
    try await modifications.next("the marker")
    #expect(leaf.label == "marker")
  }

  @Test func aModelThatIsNotAnchoredEndsAtOnce() async throws {
    let free = Leaf(value: 1)
    var iterator = free.observeAnyModification().makeAsyncIterator()
    let first: Void? = await iterator.next()
    #expect(first == nil)
  }
}
