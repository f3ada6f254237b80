import Arbor
import ArborTesting
import Testing

private struct Refused: Error {}

/// `node.onChange(of:)`: the old and the new value of each transition, the baseline taken
/// when it is called, `initial`, touches, errors and `cancelPrevious`.
@Suite struct OnChangeTests {
  @Test func itDeliversTheOldAndTheNewValueOfEachTransition() async {
    let leaf = Leaf(value: 0).withAnchor()
    let log = EventLog()
    leaf.node.onChange(of: leaf.value) { old, new in log.append("\(old)->\(new)") }
    // The baseline was read by the call: a write right after it is a transition.
    leaf.value = 1
    await expectEventually("the first transition") { log.all == ["0->1"] }
    leaf.value = 2
    await expectEventually("the second transition") { log.all == ["0->1", "1->2"] }
    // Writing the value it holds is no transition; the marker comes next.
    leaf.value = 2
    leaf.label = "unrelated"
    leaf.value = 3
    await expectEventually("the marker, after no transition for the same value") { log.all == ["0->1", "1->2", "2->3"] }
  }

  @Test func initialDeliversTheFirstValueAsItsOwnOldValue() async {
    let leaf = Leaf(value: 5).withAnchor()
    let log = EventLog()
    leaf.node.onChange(of: leaf.value, initial: true) { old, new in log.append("\(old)->\(new)") }
    await expectEventually("the initial call") { log.all == ["5->5"] }
    leaf.value = 6
    await expectEventually("the transition after it") { log.all == ["5->5", "5->6"] }
  }

  @Test func anExpressionOverSeveralModelsFollowsModelsJoining() async {
    let root = Branch(name: "root", leaves: [Leaf(value: 1)]).withAnchor()
    let log = EventLog()
    root.node.onChange(of: root.leaves.map(\.value).reduce(0, +)) { old, new in log.append("\(old)->\(new)") }
    root.leaves.append(Leaf(value: 10))
    await expectEventually("a model joined") { log.all == ["1->11"] }
    root.leaves[1].value = 20
    await expectEventually("the new model's property changed") { log.all == ["1->11", "11->21"] }
  }

  @Test func aTouchDeliversATransitionToTheSameValue() async {
    let leaf = Leaf(value: 7).withAnchor()
    let log = EventLog()
    leaf.node.onChange(of: leaf.value) { old, new in log.append("\(old)->\(new)") }
    leaf.node.touch(\.value)
    await expectEventually("the touch") { log.all == ["7->7"] }
  }

  @Test func anErrorGoesToCatchAndTheObservationGoesOn() async {
    let leaf = Leaf(value: 0).withAnchor()
    let log = EventLog()
    leaf.node.onChange(of: leaf.value) { old, new in
      if new == 1 { throw Refused() }
      log.append("\(old)->\(new)")
    } catch: { error in
      log.append("caught \(error is Refused)")
    }
    leaf.value = 1
    await expectEventually("the error") { log.all == ["caught true"] }
    leaf.value = 2
    await expectEventually("the next transition, from the value that failed") { log.all == ["caught true", "1->2"] }
  }

  @Test func cancelPreviousCancelsTheWorkOfTheTransitionBefore() async {
    let leaf = Leaf(value: 0).withAnchor()
    let log = EventLog()
    leaf.node.onChange(of: leaf.value, cancelPrevious: true) { old, new in
      log.append("start \(old)->\(new)")
      if new == 1 {
        do {
          try await Task.sleep(for: .seconds(600))  // ended by the next transition
        } catch {
          log.append("cancelled \(old)->\(new)")
          throw error
        }
      }
      log.append("end \(old)->\(new)")
    }
    leaf.value = 1
    await expectEventually("the first transition's work to start") { log.all == ["start 0->1"] }
    leaf.value = 2
    await expectEventually("the first work cancelled, the second done") {
      Set(log.all) == ["start 0->1", "cancelled 0->1", "start 1->2", "end 1->2"]
    }
    #expect(!log.all.contains("end 0->1"))
  }

  @Test func cancellingItStopsTheTransitions() async {
    let leaf = Leaf(value: 0).withAnchor()
    let log = EventLog()
    let observation = leaf.node.onChange(of: leaf.value) { old, new in log.append("\(old)->\(new)") }
    leaf.node.onChange(of: leaf.label) { _, new in log.append("marker \(new)") }
    leaf.value = 1
    await expectEventually("a transition before cancelling") { log.all == ["0->1"] }
    // Cancelling cancels its task at once: no transition after it is delivered.
    observation.cancel()
    leaf.value = 2
    leaf.label = "after"
    await expectEventually("the marker of the other observation") { log.all.last == "marker after" }
    #expect(log.all == ["0->1", "marker after"])
  }
}
