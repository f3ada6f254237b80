import Arbor
import ArborTesting
import CounterFact
import Testing

/// A counter at the ends of `Int` (where a restored tree may put it) stays there: a tap
/// past the end changes nothing instead of trapping and stopping the daemon.
@Suite struct CounterBoundsTests {
  @Test func aCounterAtTheEndsOfIntStaysThere() async throws {
    let (app, anchor) = AppModel(counters: [CounterRowModel(counter: CounterModel(count: .max)), CounterRowModel(counter: CounterModel(count: .min))])
      .andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    _ = try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/0/counter"))
    _ = try await dispatcher.callWithDeadline("decrementTapped", on: .path("/counters/1/counter"))
    #expect(app.counters.map(\.counter.count) == [.max, .min])
    #expect(anchor.revision == 0)
    _ = try await dispatcher.callWithDeadline("decrementTapped", on: .path("/counters/0/counter"))
    _ = try await dispatcher.callWithDeadline("incrementTapped", on: .path("/counters/1/counter"))
    #expect(app.counters.map(\.counter.count) == [.max - 1, .min + 1])
  }
}
