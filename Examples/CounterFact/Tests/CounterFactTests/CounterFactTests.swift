import Arbor
import CounterFact
import Dependencies
import Testing

/// Waits (bounded) until `condition` holds. It polls, so the condition may read test
/// doubles as well as model state.
func expectEventually(_ condition: @Sendable () -> Bool, timeout: Duration = .seconds(20)) async -> Bool {
  let deadline = ContinuousClock.now + timeout
  while !condition() {
    if ContinuousClock.now > deadline { return false }
    try? await Task.sleep(for: .milliseconds(2))
  }
  return true
}

@Suite struct CounterFactTests {
  let goodFacts = FactClient { "\($0) is a good number." }

  @Test func addingAndCountingUp() {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.addButtonTapped()
    app.counters[0].counter.incrementTapped()
    app.counters[1].counter.incrementTapped()
    app.counters[1].counter.incrementTapped()
    app.counters[1].counter.decrementTapped()
    #expect(app.counters.map(\.counter.count) == [1, 1])
    #expect(app.sum == 2)
  }

  @Test func aFetchedFactBecomesThePrompt() async {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    counter.incrementTapped()
    counter.factButtonTapped()
    #expect(await expectEventually { app.factPrompt?.fact == "1 is a good number." })
    #expect(app.factPrompt?.count == 1)
    #expect(counter.isLoadingFact == false)
  }

  @Test func aFailedFetchBecomesAnAlertNotACrash() async {
    struct Offline: Error {}
    let app = AppModel().withAnchor { $0.factClient = FactClient { _ in throw Offline() } }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    counter.factButtonTapped()
    #expect(await expectEventually { counter.alert != nil })
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load a fact about 0."))
    #expect(app.factPrompt == nil)
    counter.alertDismissed()
    #expect(counter.alert == nil)
  }

  @Test func theLiveClientTimesOutIntoAnAlert() async {
    // Nothing answers on this machine's network: the live client must fail within its
    // timeout and the counter must show an alert.
    let app = AppModel().withAnchor { $0.factClient = .live(timeout: 1) }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    counter.factButtonTapped()
    #expect(await expectEventually({ counter.alert != nil || app.factPrompt != nil }, timeout: .seconds(15)))
  }

  @Test func rowsAskToBeRemovedWithAnEvent() async {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.addButtonTapped()
    let keep = app.counters[1]
    app.counters[0].removeButtonTapped()
    #expect(await expectEventually { app.counters.map(\.id) == [keep.id] })
  }

  @Test func thePromptIsDismissedWithAnEvent() async {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.counters[0].counter.factButtonTapped()
    #expect(await expectEventually { app.factPrompt != nil })
    app.factPrompt?.dismissTapped()
    #expect(await expectEventually { app.factPrompt == nil })
  }

  @Test func anotherFactReplacesTheFact() async {
    let calls = LockIsolatedCounter()
    let app = AppModel().withAnchor {
      $0.factClient = FactClient { number in "fact \(calls.next()) about \(number)" }
    }
    app.addButtonTapped()
    app.counters[0].counter.factButtonTapped()
    #expect(await expectEventually { app.factPrompt?.fact == "fact 1 about 0" })
    app.factPrompt?.getAnotherFactButtonTapped()
    #expect(await expectEventually { app.factPrompt?.fact == "fact 2 about 0" })
  }

  @Test func removingACounterCancelsItsFetch() async {
    let started = LockIsolatedCounter()
    let app = AppModel().withAnchor {
      $0.factClient = FactClient { _ in
        _ = started.next()
        try await Task.sleep(for: .seconds(600))
        return "never"
      }
    }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    counter.factButtonTapped()
    #expect(await expectEventually { started.value == 1 })
    app.counters.removeAll()
    #expect(await expectEventually { counter.isLoadingFact == false })
    #expect(counter.alert == nil, "a cancelled fetch is not an error to show")
    #expect(app.factPrompt == nil)
  }

  @Test func theUnimplementedTestClientIsReported() async {
    let app = AppModel().withAnchor()
    app.addButtonTapped()
    let counter = app.counters[0].counter
    await withKnownIssue {
      counter.factButtonTapped()
      _ = await expectEventually { counter.alert != nil }
    }
  }
}

/// A thread-safe counter for test doubles.
final class LockIsolatedCounter: Sendable {
  private let count = LockIsolated(0)
  func next() -> Int { count.withValue { $0 += 1; return $0 } }
  var value: Int { count.value }
}
