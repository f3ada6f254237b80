@testable import Arbor
import ArborTesting
import CounterFact
import Dependencies
import Foundation
import Testing

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
    await expectEventually("the fact about 1 to be the prompt") { app.factPrompt?.fact == "1 is a good number." }
    #expect(app.factPrompt?.count == 1)
    #expect(counter.isLoadingFact == false)
  }

  @Test func aFailedFetchBecomesAnAlertNotACrash() async {
    struct Offline: Error {}
    let app = AppModel().withAnchor { $0.factClient = FactClient { _ in throw Offline() } }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    let loaded = EventLog()
    app.node.forEach(app.node.event(fromType: CounterModel.self)) { event, _ in loaded.append("\(event)") }
    counter.factButtonTapped()
    await expectEventually("the failure to become an alert") { counter.alert != nil }
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load a fact about 0."))
    // A marker sent along the same path after the failure: once the app has it, any event
    // the failed fetch had sent would have arrived before it.
    counter.node.send(.factLoaded(count: -1, fact: "marker"))
    await expectEventually("the marker event to reach the app") { !loaded.all.isEmpty }
    #expect(loaded.all == [#"factLoaded(count: -1, fact: "marker")"#], "the failed fetch sent nothing")
    counter.alertDismissed()
    #expect(counter.alert == nil)
  }

  @Test func rowsAskToBeRemovedWithAnEvent() async {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.addButtonTapped()
    let keep = app.counters[1]
    app.counters[0].removeButtonTapped()
    await expectEventually("the first row to be removed") { app.counters.map(\.id) == [keep.id] }
  }

  @Test func thePromptIsDismissedWithAnEvent() async {
    let app = AppModel().withAnchor { $0.factClient = goodFacts }
    app.addButtonTapped()
    app.counters[0].counter.factButtonTapped()
    await expectEventually("a prompt") { app.factPrompt != nil }
    app.factPrompt?.dismissTapped()
    await expectEventually("the prompt to be dismissed") { app.factPrompt == nil }
  }

  @Test func anotherFactReplacesTheFact() async {
    let calls = LockIsolatedCounter()
    let app = AppModel().withAnchor {
      $0.factClient = FactClient { number in "fact \(calls.next()) about \(number)" }
    }
    app.addButtonTapped()
    app.counters[0].counter.factButtonTapped()
    await expectEventually("the first fact") { app.factPrompt?.fact == "fact 1 about 0" }
    app.factPrompt?.getAnotherFactButtonTapped()
    await expectEventually("the second fact") { app.factPrompt?.fact == "fact 2 about 0" }
  }

  @Test func removingACounterCancelsItsFetch() async throws {
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
    await expectEventually("the fetch to start") { started.value == 1 }
    let fetches = runningTasks(of: counter)
    #expect(fetches.count == 1)
    app.counters.removeAll()
    // Once the fetch's task has ended, its `catch` has run to the end.
    for fetch in fetches { try await withDeadline("the cancelled fetch to end") { await fetch.value } }
    #expect(counter.isLoadingFact == false)
    #expect(counter.alert == nil, "a cancelled fetch is not an error to show")
    #expect(app.factPrompt == nil)
  }

  @Test func theUnimplementedTestClientIsReported() async {
    let app = AppModel().withAnchor()
    app.addButtonTapped()
    let counter = app.counters[0].counter
    await withKnownIssue {
      counter.factButtonTapped()
      await expectEventually("the unimplemented fetch to fail into an alert") { counter.alert != nil }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.contains("FactClient.fetch has no test implementation") }
    }
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load a fact about 0."))
  }
}

/// The live client, against ``NumbersAPIStub`` instead of the network.
@Suite struct LiveFactClientTests {
  init() { NumbersAPIStub.install() }

  /// An app with one counter at `count`, fetching with the live client.
  func fetch(at count: Int, timeout: TimeInterval = 1) -> (AppModel, CounterModel) {
    let app = AppModel().withAnchor { $0.factClient = .live(timeout: timeout) }
    app.addButtonTapped()
    let counter = app.counters[0].counter
    for _ in 0..<count { counter.incrementTapped() }
    counter.factButtonTapped()
    return (app, counter)
  }

  @Test func theLiveClientAsksNumbersAPIWithItsTimeout() async {
    let (app, counter) = fetch(at: 1, timeout: 1)
    await expectEventually("the fact about 1 to be the prompt") { app.factPrompt != nil }
    #expect(app.factPrompt?.fact == "1 is the number of moons of the Earth.")
    #expect(counter.alert == nil)
    let request = NumbersAPIStub.requests.value.first { $0.url.hasSuffix("/1") }
    #expect(request?.url == "http://numbersapi.com/1")
    #expect(request?.timeout == 1, "the request carries the client's timeout")
  }

  @Test func aRequestThatTimesOutBecomesAnAlert() async {
    let (app, counter) = fetch(at: 0)
    await expectEventually("the timeout to become an alert") { counter.alert != nil }
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load a fact about 0."))
    #expect(counter.isLoadingFact == false)
    #expect(app.factPrompt == nil)
  }

  @Test(arguments: [2, 3])
  func aServerErrorOrAnEmptyAnswerBecomesAnAlert(count: Int) async {
    let (app, counter) = fetch(at: count)
    await expectEventually("the bad answer to become an alert") { counter.alert != nil }
    #expect(counter.alert == Alert(title: "Error", message: "Couldn't load a fact about \(count)."))
    #expect(app.factPrompt == nil)
  }
}

/// The tasks a model is running now: what its `node.task` calls started and that have not
/// ended or been cancelled yet.
func runningTasks(of model: some Model) -> [Task<Void, Never>] {
  model._$modelContext.withLock { model._$modelContext.hooks?.cancellables.values.compactMap(\.task) ?? [] }
}

/// A thread-safe counter for test doubles.
final class LockIsolatedCounter: Sendable {
  private let count = LockIsolated(0)
  func next() -> Int { count.withValue { $0 += 1; return $0 } }
  var value: Int { count.value }
}

/// Records strings in order, across threads.
final class EventLog: Sendable {
  private let entries = LockIsolated<[String]>([])
  func append(_ entry: String) { entries.withValue { $0.append(entry) } }
  var all: [String] { entries.value }
}
