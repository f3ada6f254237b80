@testable import Arbor
import ArborTesting
import ConcurrencyExtras
import Synchronization
import Testing

@Suite struct ObservedTests {
  @Test func yieldsTheCurrentValueThenEachChange() async throws {
    let leaf = Leaf(value: 1).withAnchor()
    let values = DeadlineIterator(Observed { leaf.value })
    #expect(try await values.next("the current value") == 1)
    leaf.value = 2
    #expect(try await values.next("the value after writing 2") == 2)
    leaf.value = 3
    #expect(try await values.next("the value after writing 3") == 3)
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

  @Test func equatableValuesSkipConsecutiveDuplicates() async throws {
    let leaf = Leaf(value: 1).withAnchor()
    let values = DeadlineIterator(Observed { leaf.value % 2 })
    #expect(try await values.next("the current parity") == 1)
    leaf.value = 3
    leaf.value = 4
    #expect(try await values.next("the next different parity") == 0)
  }

  /// A write that finds the observation dirty does not take its lock (it only reads a
  /// flag); none of the writes of a writer racing the consumer may be the last one and
  /// be lost: the consumer always reaches the last value, whether it was evaluating,
  /// waiting, or between the two when the writes stopped.
  @Test(arguments: [0, 1, 2, 3, 4, 5, 6, 7])
  func aConsumerRacingAWriterReachesItsLastValue(round: Int) async throws {
    let leaf = Leaf(value: 0).withAnchor()
    let values = DeadlineIterator(Observed { leaf.value })
    #expect(try await values.next("the current value") == 0)
    // Bursts of different lengths, with pauses, so that the last write of a burst finds
    // the consumer in every state.
    let last = 2_000 + round * 977
    let writer = Task.detached {
      for value in 1...last {
        leaf.value = value
        if value % (97 + round * 13) == 0 { try? await Task.sleep(for: .microseconds(50 * (round + 1))) }
      }
    }
    var seen = 0
    while seen < last {
      let value = try await values.next("the last value \(last) (seen \(seen))")
      #expect(value >= seen, "values never go back")
      seen = value
    }
    await writer.value
    #expect(seen == last)
  }

  @Test func aBurstOfWritesIsOneEvaluation() async throws {
    let leaf = Leaf(value: 0).withAnchor()
    let evaluations = Tally()
    let values = DeadlineIterator(
      Observed {
        evaluations.add()
        return leaf.value
      })
    #expect(try await values.next("the current value") == 0)
    for value in 1...100 { leaf.value = value }
    #expect(try await values.next("the value after the burst") == 100)
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

  @Test func touchMakesAnObservedStreamYieldAnEqualValueAgain() async throws {
    let leaf = Leaf(value: 1).withAnchor()
    let values = DeadlineIterator(Observed { leaf.value })
    #expect(try await values.next("the current value") == 1)
    leaf.node.touch(\.value)
    #expect(try await values.next("the value after touch, equal to the last") == 1)
    // Without touch an equal re-evaluation is skipped: the next value seen is the marker.
    leaf.value = 1
    leaf.node.transaction { leaf.label = "unobserved" }
    leaf.value = 2
    #expect(try await values.next("the marker value 2") == 2)
  }

  @Test func observesModelsBeforeAnchoring() async throws {
    let leaf = Leaf(value: 1)
    let values = DeadlineIterator(Observed { leaf.value })
    #expect(try await values.next("the current value") == 1)
    leaf.value = 5
    #expect(try await values.next("the value after writing 5") == 5)
  }

  @Test func observesStructuralChanges() async throws {
    let branch = Branch(name: "r").withAnchor()
    let sums = DeadlineIterator(Observed { branch.leaves.map(\.value).reduce(0, +) })
    #expect(try await sums.next("the sum of no leaves") == 0)
    branch.leaves.append(Leaf(value: 2))
    #expect(try await sums.next("the sum after appending a leaf") == 2)
    branch.leaves[0].value = 5
    #expect(try await sums.next("the sum after changing the leaf") == 5)
  }

  @Test func aTransactionIsSeenOnceInItsFinalState() async throws {
    let leaf = Leaf(value: 0, label: "").withAnchor()
    let observer = AccessObserver()
    _ = observer.track { "\(leaf.value)\(leaf.label)" }
    let evaluations = LockIsolated<[String]>([])
    let values = DeadlineIterator(
      Observed {
        let value = "\(leaf.value)\(leaf.label)"
        evaluations.withValue { $0.append(value) }
        return value
      })
    #expect(try await values.next("the current value") == "0")
    leaf.node.transaction {
      leaf.value = 1
      #expect(!observer.isDirty, "nobody is woken before the transaction commits")
      leaf.label = "x"
      leaf.value = 2
    }
    #expect(observer.isDirty)
    observer.unregisterAll()
    #expect(try await values.next("the value after the transaction") == "2x")
    #expect(evaluations.value == ["0", "2x"], "one evaluation for the whole transaction, in its final state")
  }

  @Test func cancellingTheConsumerEndsTheSequenceAndDropsRegistrations() async throws {
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
    let starts = DeadlineIterator(started.stream)
    try await starts.next("the consumer to take the first value")
    task.cancel()
    #expect(try await withDeadline("the cancelled consumer to end") { await task.value } == 1)
    #expect(leaf._$modelContext.withLock { leaf._$modelContext.observers.isEmpty })
  }
}

extension AccessObserver {
  var isDirty: Bool { peekDirty() }
}
