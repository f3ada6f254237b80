@testable import Arbor
import ArborTesting
import Testing

/// A model with a plain array and a string, mutated in place before it is anchored.
@Model struct Tape {
  var marks: [Int] = []
  var note = ""
}

/// Writes to models that are not anchored yet: user code inside an in-place mutation or
/// an `==` runs with no lock held, so it may touch any model, anchored or not, from any
/// thread. Every test that could deadlock runs its work on threads of its own, each waited
/// for with a deadline: a deadlock fails the test instead of hanging the run.
@Suite struct DetachedWritesTests {
  @Test func aMutationBeforeAnchoringHoldsNoLockWhileItsBodyRuns() async throws {
    // The mutation's body reads an anchored tree whose lock a transaction holds, and the
    // transaction reads the unanchored model. Holding the model's stripe lock across the
    // body (the tree lock wanted inside it) while the transaction wants that stripe lock
    // (inside the tree lock) would be a deadlock.
    let loose = Tape(marks: [1, 2, 3])
    let (leaf, anchor) = Leaf(value: 7).andAnchor()
    let mutating = Signal()
    let transacting = Signal()

    async let mutation = OtherThread.run("the in-place mutation of the unanchored model") { () -> (Bool, Int) in
      var came = false
      var seen = 0
      loose.marks.removeAll { mark in
        if mark == 1 {
          mutating.send()
          came = transacting.wait()
          seen = leaf.value
        }
        return mark == 2
      }
      return (came, seen)
    }
    async let transaction = OtherThread.run("the transaction on the anchored tree") { () -> (Bool, [Int]) in
      leaf.node.transaction {
        transacting.send()
        let came = mutating.wait()
        return (came, loose.marks)
      }
    }
    do {
      let (transactionSawTheMutation, seen) = try await mutation
      let (mutationSawTheTransaction, marksDuringTheMutation) = try await transaction
      #expect(transactionSawTheMutation && mutationSawTheTransaction, "the two threads did not overlap")
      #expect(seen == 7)
      #expect(marksDuringTheMutation == [1, 2, 3], "readers see the value from before the mutation")
      #expect(loose.marks == [1, 3])
    } catch {
      OtherThread.abandon(anchor)
      throw error
    }
  }

  @Test func twoMutationsBeforeAnchoringMayEachReadTheOthersModel() async throws {
    let (first, second) = Self.modelsOnTwoStripes()
    let firstInside = Signal()
    let secondInside = Signal()

    async let firstMutation = OtherThread.run("the mutation of the first model") { () -> (Bool, String) in
      var came = false
      var seen = ""
      first.marks.removeAll { mark in
        if mark == 1 {
          firstInside.send()
          came = secondInside.wait()
          seen = second.note
        }
        return false
      }
      return (came, seen)
    }
    async let secondMutation = OtherThread.run("the mutation of the second model") { () -> (Bool, String) in
      var came = false
      var seen = ""
      second.marks.removeAll { mark in
        if mark == 1 {
          secondInside.send()
          came = firstInside.wait()
          seen = first.note
        }
        return false
      }
      return (came, seen)
    }
    let (firstCame, firstSaw) = try await firstMutation
    let (secondCame, secondSaw) = try await secondMutation
    #expect(firstCame && secondCame, "the two mutations did not overlap")
    #expect(firstSaw == "second")
    #expect(secondSaw == "first")
  }

  @Test func aMutationBeforeAnchoringMayReadItsOwnProperty() {
    let loose = Tape(marks: [1, 2, 3])
    var counts: [Int] = []
    loose.marks.removeAll { mark in
      counts.append(loose.marks.count)
      return mark == 2
    }
    #expect(counts == [3, 3, 3], "the property keeps its value until the mutation ends")
    #expect(loose.marks == [1, 3])
  }

  @Test func anEqualityCheckBeforeAnchoringHoldsNoLock() async throws {
    // `==` of the written value reads an anchored tree whose lock a transaction holds, and
    // the transaction reads the unanchored model.
    let loose = Meter(reading: Hooked(1))
    let (leaf, anchor) = Leaf(value: 7).andAnchor()
    let comparing = Signal()
    let transacting = Signal()
    let compared = Tally()
    let hook = Hook {
      guard !compared.isRaised else { return }
      compared.raise()
      comparing.send()
      _ = transacting.wait()
      _ = leaf.value
    }

    async let write: Void = OtherThread.run("the write of an equal value to the unanchored model") {
      loose.reading = Hooked(1, onCompare: hook)
    }
    async let transaction = OtherThread.run("the transaction on the anchored tree") { () -> Int in
      leaf.node.transaction {
        transacting.send()
        _ = comparing.wait()
        return loose.reading.number
      }
    }
    do {
      try await write
      #expect(try await transaction == 1)
      #expect(compared.isRaised, "== was not called")
    } catch {
      OtherThread.abandon(anchor)
      throw error
    }
  }

  @Test func aModelAnchoredDuringItsMutationGetsTheMutationAsAChange() async throws {
    let leaves = [Leaf(value: 1), Leaf(value: 2), Leaf(value: 3)]
    let branch = Branch(name: "b", leaves: leaves)
    let inside = Signal()
    let anchored = Signal()

    async let mutation = OtherThread.run("the mutation of the branch") { () -> Bool in
      var came = false
      branch.leaves.removeAll { leaf in
        if leaf.id == leaves[0].id {
          inside.send()
          came = anchored.wait()
        }
        return leaf.id == leaves[1].id
      }
      return came
    }
    #expect(try await OtherThread.run("the mutation to begin") { inside.wait() })
    let anchor = branch.andAnchor().1
    let changes = DeadlineIterator(anchor.changeSets())
    anchored.send()
    #expect(try await mutation, "the mutation did not wait for the anchoring")

    let changeSet = try await changes.next("the change set of the write-back")
    #expect(changeSet.changes.map(\.valuePath.description) == ["/leaves/1"])
    guard case .remove(index: 1) = changeSet.changes.first?.operation else {
      Issue.record("not the removal of /leaves/1: \(changeSet.changes)")
      return
    }
    #expect(leaves[1].lifetime == .destructed)
    #expect(leaves[2].node.path?.description == "/leaves/1")
    #expect(branch.leaves.map(\.value) == [1, 3])
  }

  /// Two unanchored models guarded by different stripe locks.
  static func modelsOnTwoStripes() -> (Tape, Tape) {
    let first = Tape(marks: [1], note: "first")
    var candidates: [Tape] = []
    while true {
      let second = Tape(marks: [1], note: "second")
      if StripedLocks.lock(for: second._$modelContext) !== StripedLocks.lock(for: first._$modelContext) {
        return (first, second)
      }
      candidates.append(second)  // kept alive, so the next one gets another address
    }
  }
}
