import Arbor
import ArborTesting
import CounterFact
import Testing

/// CounterFact's tests written as the SwiftModel guide writes them: `andTester`, `assert`,
/// `unwrap` and `didSend`, exhaustive by default — every state change, event and task is
/// accounted for, or the test fails.
@Suite struct CounterFactTesterTests {
  @Test func addingACounter() async {
    let (model, tester) = AppModel().andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    await tester.assert {
      model.counters.count == 1
    }
  }

  @Test func countingUpInARowThatUnwrapGave() async throws {
    let (model, tester) = AppModel().andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    let row = try await tester.unwrap(model.counters.first)
    row.counter.incrementTapped()
    await tester.assert {
      row.counter.count == 1
    }
  }

  @Test func theFactButtonSendsTheFactToTheParent() async {
    let (model, tester) = CounterModel(count: 2).andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.factButtonTapped()
    await tester.assert {
      model.isLoadingFact == false
      model.didSend(.factLoaded(count: 2, fact: "2 is a good number."))
    }
  }

  @Test func theFactOpensThePromptAndDismissingItClosesIt() async throws {
    let (model, tester) = AppModel().andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    let counter = try await tester.unwrap(model.counters.first?.counter)
    counter.incrementTapped()
    counter.factButtonTapped()
    let prompt = try await tester.unwrap(model.factPrompt)
    await tester.assert {
      counter.count == 1
      counter.isLoadingFact == false
      prompt.fact == "1 is a good number."
      prompt.count == 1
      counter.didSend(.factLoaded(count: 1, fact: "1 is a good number."))
    }
    prompt.dismissTapped()
    await tester.assert {
      model.factPrompt == nil
      prompt.didSend(.dismissTapped)
    }
  }

  /// The guide's own test of the closure-passing counter (`GuideCounterFactTests`'
  /// `Guide.CounterModel`), word for word: a `TestProbe` stands in for `onFact`.
  @Test func testFactButtonTapped() async {
    let onFact = TestProbe()
    let (model, tester) = Guide.CounterModel(count: 2, onFact: onFact.call).andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    tester.install(onFact)
    model.factButtonTapped()
    await tester.assert {
      onFact.wasCalled(with: 2, "2 is a good number.")
    }
  }
}
