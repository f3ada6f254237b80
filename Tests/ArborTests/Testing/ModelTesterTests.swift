import Arbor
import ArborTesting
import ConcurrencyExtras
import IssueReporting
import Testing

@Model struct TesterCounter {
  enum Event: Sendable, Equatable { case reachedThree, reset }

  var count = 0
  var title = "Counter"
  var history: [Int] = []
  var child: TesterCounter? = nil
  @ModelIgnored var onFact: (@Sendable (Int, String) -> Void)? = nil
  @ModelIgnored var gate: Gate? = nil

  func increment() {
    count += 1
    history.append(count)
    if count == 3 { node.send(Event.reachedThree) }
  }

  func fetchFact() {
    node.task {
      await gate?.wait()
      onFact?(count, "\(count) is a good number.")
    }
  }

  func addChild() { child = TesterCounter(title: "Child") }
}

/// The model tester: `assert` waits and consumes, `unwrap`, `didSend`, `TestProbe`, and
/// each exhaustivity category failing when something is left unasserted, and passing
/// when everything is.
@Suite struct ModelTesterTests {
  /// Runs `body` with a recording reporter: the tester created inside ends inside.
  func reported(_ body: () async throws -> Void) async rethrows -> RecordingReporter {
    let reporter = RecordingReporter()
    try await withIssueReporters([reporter]) { try await body() }
    return reporter
  }

  @Test func anAssertWaitsForItsPredicatesAndConsumesWhatTheyRead() async throws {
    let reporter = await reported {
      let (model, tester) = TesterCounter().andTester()
      model.node.task { model.increment() }
      await tester.assert {
        model.count == 1
        model.history == [1]
      }
      _ = tester
    }
    #expect(reporter.messages.isEmpty, "\(reporter.messages)")
  }

  @Test func aChangeNoAssertReadIsReportedWithItsValuesAtTheTestersLine() async throws {
    var testerLine: UInt = 0
    let reporter = await reported {
      testerLine = #line + 1
      let (model, tester) = TesterCounter().andTester()
      model.increment()
      model.increment()
      await tester.assert { model.count == 2 }
      _ = tester
    }
    let message = try #require(reporter.messages.first, "one report")
    #expect(reporter.messages.count == 1)
    #expect(message.contains("State changes not asserted:"), "\(message)")
    #expect(message.contains("TesterCounter.history at /history: [] → [1] → [1,2] (revisions 2, 4)"), "\(message)")
    #expect(!message.contains("TesterCounter.count"), "count was asserted: \(message)")
    #expect(reporter.reports.first?.line == testerLine, "reported at the line of andTester")
  }

  @Test func aFailingAssertSaysWhichPredicatesFailedAndEveryValueTheBlockRead() async throws {
    var assertLine: UInt = 0
    let reporter = await reported {
      let (model, tester) = TesterCounter().andTester(exhaustivity: .off)
      model.increment()
      assertLine = #line + 1
      await tester.assert(timeout: .milliseconds(50)) {
        model.history == [1, 2]
        model.title.hasPrefix("X")
      }
      _ = tester
    }
    let message = try #require(reporter.messages.first)
    #expect(reporter.reports.first?.line == assertLine)
    #expect(message.contains("#1 of 2: not equal (− left side, + right side):"), "\(message)")
    #expect(message.contains("+   [1]: 2"), "a diff: \(message)")
    #expect(message.contains("#2 of 2: the expression is false"), "\(message)")
    #expect(message.contains("TesterCounter.history = [1] (at /history)"), "\(message)")
    #expect(message.contains(#"TesterCounter.title = "Counter" (at /title)"#), "\(message)")
  }

  @Test func unwrapWaitsForAChildAndConsumesItsAppearance() async throws {
    let reporter = try await reported {
      let (model, tester) = TesterCounter().andTester()
      model.node.task { model.addChild() }
      let child = try await tester.unwrap(model.child)
      child.increment()
      await tester.assert { child.count == 1; child.history == [1] }
      _ = tester
    }
    #expect(reporter.messages.isEmpty, "\(reporter.messages)")
  }

  @Test func eventsMustBeMatchedByDidSend() async throws {
    let unmatched = await reported {
      let (model, tester) = TesterCounter().andTester()
      for _ in 0..<3 { model.increment() }
      await tester.assert { model.count == 3; model.history == [1, 2, 3] }
      _ = tester
    }
    let message = try #require(unmatched.messages.first)
    #expect(message.contains("Events not asserted (didSend):"), "\(message)")
    #expect(message.contains("TesterCounter.Event.reachedThree from TesterCounter at /"), "\(message)")

    let matched = await reported {
      let (model, tester) = TesterCounter().andTester()
      for _ in 0..<3 { model.increment() }
      await tester.assert {
        model.count == 3
        model.history == [1, 2, 3]
        model.didSend(.reachedThree)
      }
      _ = tester
    }
    #expect(matched.messages.isEmpty, "\(matched.messages)")

    // An event is matched once: a second didSend of it waits, then fails.
    let twice = await reported {
      let (model, tester) = TesterCounter().andTester(exhaustivity: .events)
      for _ in 0..<3 { model.increment() }
      await tester.assert { model.didSend(.reachedThree) }
      await tester.assert(timeout: .milliseconds(50)) { model.didSend(.reachedThree) }
      _ = tester
    }
    #expect(twice.messages.count == 1)
    #expect(twice.messages.first?.contains("TesterCounter did not send reachedThree") == true, "\(twice.messages)")
  }

  @Test func tasksStillRunningAtTheEndAreReported() async throws {
    let gate = Gate()
    let running = await reported {
      let (model, tester) = TesterCounter(gate: gate).andTester(exhaustivity: .tasks)
      model.fetchFact()
      _ = tester
    }
    gate.open()
    let message = try #require(running.messages.first)
    #expect(message.contains("Tasks still running:\n  a task of TesterCounter at /"), "\(message)")

    let ended = await reported {
      let done = Gate()
      done.open()
      let onFact = TestProbe("onFact")
      let (model, tester) = TesterCounter(onFact: onFact.call, gate: done).andTester(exhaustivity: .tasks)
      model.fetchFact()
      // The task's last step is the call: once it is seen, only the task's return is left.
      await tester.assert { onFact.callCount == 1 }
      _ = tester
    }
    #expect(ended.messages.isEmpty, "a task that ends in time is no leftover: \(ended.messages)")
  }

  @Test func probeCallsMustBeMatchedByWasCalled() async throws {
    let unmatched = await reported {
      let onFact = TestProbe("onFact")
      let (model, tester) = TesterCounter(count: 2, onFact: onFact.call).andTester(exhaustivity: .probes)
      tester.install(onFact)
      model.fetchFact()
      await tester.assert { onFact.callCount == 1 }
      _ = tester
    }
    let message = try #require(unmatched.messages.first)
    #expect(message.contains(#"onFact(2, "2 is a good number.")"#), "\(message)")

    let matched = await reported {
      let onFact = TestProbe("onFact")
      let (model, tester) = TesterCounter(count: 2, onFact: onFact.call).andTester()
      tester.install(onFact)
      model.fetchFact()
      await tester.assert { onFact.wasCalled(with: 2, "2 is a good number.") }
      _ = tester
    }
    #expect(matched.messages.isEmpty, "\(matched.messages)")

    let wrong = await reported {
      let onFact = TestProbe("onFact")
      let (model, tester) = TesterCounter(count: 2, onFact: onFact.call).andTester(exhaustivity: .off)
      model.fetchFact()
      // The call is made first (counting it does not assert it): the 100 ms below are for the
      // wrong assertion to fail, not for the fact's task to get a turn on a loaded machine.
      await tester.assert { onFact.callCount == 1 }
      await tester.assert(timeout: .milliseconds(100)) { onFact.wasCalled(with: 3, "3 is a good number.") }
      _ = tester
    }
    #expect(wrong.messages.first?.contains(#"onFact was not called with (3, "3 is a good number."); its calls not yet asserted: (2, "2 is a good number.")"#) == true, "\(wrong.messages)")
  }

  @Test func exhaustivityCanBeNarrowedOrTurnedOffAndSkippedAssertionsShown() async throws {
    let off = await reported {
      let (model, tester) = TesterCounter().andTester()
      tester.exhaustivity = .off
      for _ in 0..<3 { model.increment() }
      _ = tester
    }
    #expect(off.messages.isEmpty)
    let eventsOnly = await reported {
      let (model, tester) = TesterCounter().andTester(exhaustivity: [.state])
      for _ in 0..<3 { model.increment() }
      await tester.assert { model.count == 3; model.history == [1, 2, 3] }
      _ = tester
    }
    #expect(eventsOnly.messages.isEmpty, "events are not checked: \(eventsOnly.messages)")
    let printed = LockIsolated<[String]>([])
    let shown = await SkippedAssertions.$capture.withValue({ text in printed.withValue { $0.append(text) } }) {
      await reported {
        let (model, tester) = TesterCounter().andTester()
        tester.showSkippedAssertions = true
        model.increment()
        _ = tester
      }
    }
    #expect(shown.messages.isEmpty, "printed, not failed")
    #expect(printed.value.count == 1 && printed.value[0].contains("count at /count: 0 → 1"), "\(printed.value)")
  }

  /// With `exhaustivity = .off`, `showSkippedAssertions` prints what the test skipped (the
  /// guide's way to see what a non-exhaustive test leaves out) and fails nothing; narrowed
  /// to `.state`, it prints the event and fails on nothing it was not asked for.
  @Test func showSkippedAssertionsPrintsWhatExhaustivityLeavesOut() async {
    let printed = LockIsolated<[String]>([])
    let off = await SkippedAssertions.$capture.withValue({ text in printed.withValue { $0.append(text) } }) {
      await reported {
        let (model, tester) = TesterCounter().andTester()
        tester.exhaustivity = .off
        tester.showSkippedAssertions = true
        for _ in 0..<3 { model.increment() }
        _ = tester
      }
    }
    #expect(off.messages.isEmpty)
    let text = printed.value.joined(separator: "\n")
    #expect(text.contains("count at /count: 0 → 1 → 2 → 3"), "\(text)")
    #expect(text.contains("reachedThree"), "the event: \(text)")
    printed.setValue([])
    let stateOnly = await SkippedAssertions.$capture.withValue({ text in printed.withValue { $0.append(text) } }) {
      await reported {
        let (model, tester) = TesterCounter().andTester(exhaustivity: [.state])
        tester.showSkippedAssertions = true
        for _ in 0..<3 { model.increment() }
        await tester.assert { model.count == 3; model.history == [1, 2, 3] }
        _ = tester
      }
    }
    #expect(stateOnly.messages.isEmpty, "\(stateOnly.messages)")
    #expect(printed.value.count == 1 && printed.value[0].contains("reachedThree") && !printed.value[0].contains("/count"), "\(printed.value)")
  }

  @Test func probesFitClosuresOfEveryShape() async throws {
    let probe = TestProbe("any")
    let none: @Sendable () -> Void = probe.call
    let two: @Sendable (Int, String) -> Void = probe.call
    let later: @Sendable (String) async -> Void = probe.call
    let optional: (@Sendable (Bool) -> Void)? = probe.call
    none()
    two(1, "a")
    await later("b")
    optional?(true)
    probe(7)
    #expect(probe.callCount == 5)
    let reporter = await reported {
      let (_, tester) = TesterCounter().andTester()
      tester.install(probe)
      await tester.assert {
        probe.wasCalled()
        probe.wasCalled(with: 1, "a")
        probe.wasCalled(with: "b")
        probe.wasCalled(with: true)
        probe.wasCalled(with: 7)
      }
      _ = tester
    }
    #expect(reporter.messages.isEmpty, "\(reporter.messages)")
  }
}
