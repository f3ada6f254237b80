import Arbor
import ArborTesting
import CounterFact
import Testing

/// CounterFact's tests written only in SwiftModel 1.0's spellings: the `.modelTesting`
/// trait on the suite, a plain `withAnchor()`, `expect`, `require`, `settle`, and a
/// `TestProbe` with no install step. Exhaustive: every state change, event, task and probe
/// call is accounted for, or the test fails.
@Suite(.modelTesting) struct CounterFactModelTestingTests {
  @Test func testAddCounter() async {
    let model = AppModel().withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    await expect(model.counters.count == 1)
  }

  @Test func countingUpInARowThatRequireGave() async throws {
    let model = AppModel().withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    let row = try await require(model.counters.first)
    row.counter.incrementTapped()
    await expect {
      row.counter.count == 1
      model.sum == 1
    }
  }

  @Test func theFactButtonSendsTheFactToTheParent() async {
    let model = CounterModel(count: 2).withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.factButtonTapped()
    await expect {
      model.isLoadingFact == false
      model.didSend(.factLoaded(count: 2, fact: "2 is a good number."))
    }
  }

  @Test func theFactOpensThePromptAndDismissingItClosesIt() async throws {
    let model = AppModel().withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    await settle()
    model.addButtonTapped()
    let counter = try await require(model.counters.first?.counter)
    counter.incrementTapped()
    counter.factButtonTapped()
    let prompt = try await require(model.factPrompt)
    await expect {
      counter.count == 1
      counter.isLoadingFact == false
      prompt.fact == "1 is a good number."
      prompt.count == 1
      counter.didSend(.factLoaded(count: 1, fact: "1 is a good number."))
    }
    prompt.dismissTapped()
    await expect {
      model.factPrompt == nil
      prompt.didSend(.dismissTapped)
    }
  }

  /// The 1.0 guide's callback test: the probe joins the test's checks by being made.
  @Test func testFactButtonTapped() async {
    let onFact = TestProbe()
    let model = Guide.CounterModel(count: 2, onFact: onFact.call).withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.factButtonTapped()
    await expect {
      onFact.wasCalled(with: 2, "2 is a good number.")
    }
  }

  /// A fetch that fails shows an alert; dismissing it clears it.
  @Test(.modelTesting(.removing(.events))) func aFailedFetchShowsAnAlert() async throws {
    struct Offline: Error {}
    let model = CounterModel(count: 7).withAnchor {
      $0.factClient.fetch = { _ in throw Offline() }
    }
    model.factButtonTapped()
    let alert = try await require(model.alert)
    #expect(alert.message == "Couldn't load a fact about 7.")
    await expect(model.isLoadingFact == false)
    model.alertDismissed()
    await expect(model.alert == nil)
  }
}
