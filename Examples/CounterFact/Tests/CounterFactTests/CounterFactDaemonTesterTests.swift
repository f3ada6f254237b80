import Arbor
import ArborDaemonTesting
import ArborTesting
import ConcurrencyExtras
import Dependencies
import CounterFact
import IssueReporting
import Testing

/// CounterFactTesterTests again, through a daemon's socket: the same scenarios and the
/// same assertions, with the intents called over the socket and the state changes and
/// events checked as they arrive there (patches of a watch, event notifications).
@Suite struct CounterFactDaemonTesterTests {
  static let facts: @Sendable (inout DependencyValues) -> Void = { $0.factClient.fetch = { "\($0) is a good number." } }

  @Test func addingACounter() async throws {
    try await withDaemonTester(AppModel(), dependencies: Self.facts) { model, tester in
      try await tester.call("/", "addButtonTapped")
      await tester.assert {
        model.counters.count == 1
      }
    }
  }

  @Test func countingUpInARowThatUnwrapGave() async throws {
    try await withDaemonTester(AppModel(), dependencies: Self.facts) { model, tester in
      try await tester.call("/", "addButtonTapped")
      let row = try await tester.unwrap(model.counters.first)
      try await tester.call(row.counter, "incrementTapped")
      await tester.assert {
        row.counter.count == 1
      }
    }
  }

  @Test func theFactOpensThePromptAndDismissingItClosesIt() async throws {
    try await withDaemonTester(AppModel(), dependencies: Self.facts) { model, tester in
      try await tester.call("/", "addButtonTapped")
      let counter = try await tester.unwrap(model.counters.first?.counter)
      try await tester.call("/counters/0/counter", "incrementTapped")
      try await tester.call(counter, "factButtonTapped", settled: true)
      let prompt = try await tester.unwrap(model.factPrompt)
      await tester.assert {
        counter.count == 1
        counter.isLoadingFact == false
        prompt.fact == "1 is a good number."
        counter.didSend(.factLoaded(count: 1, fact: "1 is a good number."))
      }
      try await tester.call("/factPrompt", "dismissTapped")
      await tester.assert {
        model.factPrompt == nil
        prompt.didSend(.dismissTapped)
      }
    }
  }

  @Test func whatIsLeftUnassertedIsReportedWithThePatchesAndEvents() async throws {
    let messages = LockIsolated<[String]>([])
    let reporter = MessageRecorder(messages: messages)
    try await withIssueReporters([reporter]) {
      try await withDaemonTester(AppModel(), dependencies: Self.facts) { model, tester in
        try await tester.call("/", "addButtonTapped")
        try await tester.call("/counters/0", "removeButtonTapped")
        await tester.assert { model.counters.isEmpty }
        try await tester.call("/", "addButtonTapped")
        try await tester.call("/counters/0/counter", "incrementTapped")
        _ = try await tester.client.call("state.get")
      }
    }
    let message = try #require(messages.value.first, "one report")
    #expect(messages.value.count == 1)
    #expect(message.contains("through the daemon's socket left these unasserted"), "\(message)")
    #expect(message.contains("Patch operations not asserted:"), "\(message)")
    #expect(message.contains("add /counters/0 = "), "\(message)")
    #expect(message.contains("replace /counters/0/counter/count = 1 (revision 4)"), "\(message)")
    #expect(message.contains("Events not asserted (didSend):\n  CounterRowModel.Event {\"removeTapped\":{}} from CounterRowModel at /counters/0"), "\(message)")
  }
}

/// Keeps the messages of reported issues.
struct MessageRecorder: IssueReporter {
  let messages: LockIsolated<[String]>
  func reportIssue(
    _ message: @autoclosure () -> String?, severity: IssueSeverity, fileID: StaticString, filePath: StaticString, line: UInt, column: UInt
  ) {
    let text = message() ?? ""
    messages.withValue { $0.append(text) }
  }
}
