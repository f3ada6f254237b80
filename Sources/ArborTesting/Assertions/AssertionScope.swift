import ArborLocking
import Arbor
import ArborJSON

/// What one evaluation of an `assert` block matched: the events of `didSend` and the probe
/// calls of `wasCalled`, consumed only if the whole block passes. Set as a task-local while
/// the block runs, so that `didSend` and `wasCalled` find the tester.
final class AssertionScope: Sendable {
  @TaskLocal static var current: AssertionScope?

  struct ProbeCall: Sendable {
    let probe: TestProbe
    let index: Int
  }

  private struct State {
    var events: Set<Int> = []
    var probeCalls: [ProbeCall] = []
  }

  let tester: any EventLedger
  private let state = LockedState(State())

  init(tester: any EventLedger) { self.tester = tester }

  /// Claims the first event not yet claimed that `matches`; false when there is none.
  func claimEvent(_ matches: (TestedEvent) -> Bool) -> Bool {
    let claimed = state.withLock { $0.events }
    guard let id = tester.firstPendingEvent(excluding: claimed, where: matches) else { return false }
    state.withLock { _ = $0.events.insert(id) }
    return true
  }

  /// Claims a probe call.
  func claim(_ call: ProbeCall) { state.withLock { $0.probeCalls.append(call) } }

  /// Whether a probe's call is claimed by this evaluation already.
  func isClaimed(probe: TestProbe, index: Int) -> Bool {
    state.withLock { $0.probeCalls.contains { $0.probe === probe && $0.index == index } }
  }

  var claimedEvents: Set<Int> { state.withLock { $0.events } }
  var claimedProbeCalls: [ProbeCall] { state.withLock { $0.probeCalls } }
}

/// The events a tester has seen and not yet matched.
package protocol EventLedger: Sendable {
  /// The id of the first pending event, not in `excluded`, that `matches`.
  func firstPendingEvent(excluding excluded: Set<Int>, where matches: (TestedEvent) -> Bool) -> Int?
}

/// An event as a tester saw it: in process (the event itself), or through a daemon's
/// socket (its JSON).
package struct TestedEvent: Sendable {
  package let sourceID: ModelID
  package let value: (any Sendable)?
  package let json: JSONValue?

  package init(sourceID: ModelID, value: (any Sendable)?, json: JSONValue?) {
    self.sourceID = sourceID
    self.value = value
    self.json = json
  }
}
