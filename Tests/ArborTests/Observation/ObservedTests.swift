@testable import Arbor
import ConcurrencyExtras
import Synchronization
import Testing

@Suite struct ObservedTests {
  @Test func yieldsTheCurrentValueThenEachChange() async {
    let leaf = Leaf(value: 1).withAnchor()
    var iterator = Observed { leaf.value }.makeAsyncIterator()
    #expect(await iterator.next() == 1)
    leaf.value = 2
    #expect(await iterator.next() == 2)
    leaf.value = 3
    #expect(await iterator.next() == 3)
  }

  @Test func tracksExactlyWhatTheExpressionReads() {
    let leaf = Leaf(value: 1, label: "a").withAnchor()
    let observer = AccessObserver()
    _ = observer.track { leaf.value }
    leaf.label = "b"
    #expect(!observer.isDirty, "a write to a property nobody read wakes nobody")
    leaf.value = 2
    #expect(observer.isDirty)
    observer.unregisterAll()
  }

  @Test func dependenciesFollowTheLatestEvaluation() {
    let leaf = Leaf(value: 0, label: "a").withAnchor()
    let observer = AccessObserver()
    _ = observer.track { leaf.value == 0 ? leaf.label : "" }
    leaf.label = "b"
    #expect(observer.isDirty)
    leaf.value = 1
    _ = observer.track { leaf.value == 0 ? leaf.label : "" }
    leaf.label = "c"
    #expect(!observer.isDirty, "label is no longer read once value is non-zero")
    observer.unregisterAll()
  }

  @Test func equatableValuesSkipConsecutiveDuplicates() async {
    let leaf = Leaf(value: 1).withAnchor()
    var iterator = Observed { leaf.value % 2 }.makeAsyncIterator()
    #expect(await iterator.next() == 1)
    leaf.value = 3
    leaf.value = 4
    #expect(await iterator.next() == 0)
  }

  @Test func aBurstOfWritesIsOneEvaluation() async {
    let leaf = Leaf(value: 0).withAnchor()
    let evaluations = Tally()
    var iterator = Observed {
      evaluations.add()
      return leaf.value
    }.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    for value in 1...100 { leaf.value = value }
    #expect(await iterator.next() == 100)
    #expect(evaluations.value == 2)
  }

  @Test func writingTheCurrentValueNotifiesNobodyButTouchDoes() {
    let leaf = Leaf(value: 1).withAnchor()
    let observer = AccessObserver()
    _ = observer.track { leaf.value }
    leaf.value = 1
    #expect(!observer.isDirty)
    leaf.value += 0
    #expect(!observer.isDirty, "an in-place no-op on a trivial value is also skipped")
    leaf.node.touch(\.value)
    #expect(observer.isDirty)
    observer.unregisterAll()
  }

  @Test func observesModelsBeforeAnchoring() async {
    let leaf = Leaf(value: 1)
    var iterator = Observed { leaf.value }.makeAsyncIterator()
    #expect(await iterator.next() == 1)
    leaf.value = 5
    #expect(await iterator.next() == 5)
  }

  @Test func observesStructuralChanges() async {
    let branch = Branch(name: "r").withAnchor()
    var iterator = Observed { branch.leaves.map(\.value).reduce(0, +) }.makeAsyncIterator()
    #expect(await iterator.next() == 0)
    branch.leaves.append(Leaf(value: 2))
    #expect(await iterator.next() == 2)
    branch.leaves[0].value = 5
    #expect(await iterator.next() == 5)
  }

  @Test func aTransactionIsSeenOnceInItsFinalState() async {
    let leaf = Leaf(value: 0, label: "").withAnchor()
    let seen = LockIsolated<[String]>([])
    var iterator = Observed { "\(leaf.value)\(leaf.label)" }.makeAsyncIterator()
    _ = await iterator.next()
    leaf.node.transaction {
      leaf.value = 1
      leaf.label = "x"
      leaf.value = 2
    }
    let next = await iterator.next()
    seen.withValue { $0.append(next ?? "") }
    #expect(seen.value == ["2x"])
  }

  @Test func cancellingTheConsumerEndsTheSequenceAndDropsRegistrations() async {
    let leaf = Leaf(value: 0).withAnchor()
    let started = AsyncStream<Void>.makeStream()
    let task = Task {
      var count = 0
      for await _ in Observed({ leaf.value }) {
        count += 1
        started.continuation.yield()
      }
      return count
    }
    var iterator = started.stream.makeAsyncIterator()
    await iterator.next()
    task.cancel()
    #expect(await task.value == 1)
    #expect(leaf._$modelContext.withLock { leaf._$modelContext.observers.isEmpty })
  }
}

extension AccessObserver {
  var isDirty: Bool { peekDirty() }
}
