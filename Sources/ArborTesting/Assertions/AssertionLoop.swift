import Arbor
import Foundation
import IssueReporting

/// What a tester gives the assertion loop: its pending events (for `didSend`), how to
/// consume what a passing block read and matched, and how to show what a block read.
package protocol AssertionLedger: EventLedger {
  /// Consumes the state changes `reads` looked at and the events a block matched.
  func consume(reads: Set<RecordedRead>, events: Set<Int>)
  /// `CounterModel.count = 1 (at /counters/0/counter/count)`, for each read.
  func describe(_ reads: Set<RecordedRead>) -> [String]
  /// Whether every change committed so far has been recorded: a block that passes before
  /// then is evaluated again, so that it consumes the changes it saw.
  var hasRecordedEverything: Bool { get }
}

extension AssertionLedger {
  package var hasRecordedEverything: Bool { true }
}

/// One recorded write an `expect` block can be evaluated at (`.transitions`): the states
/// of the models as of that write, and the write's place in the ledger's records.
package struct TransitionPoint: Sendable {
  package let states: [RecordedStates.Key: any Sendable]
  package let sequence: Int
}

/// A ledger that checks `.transitions`.
package protocol TransitionLedger: AssertionLedger {
  /// Whether consecutive blocks must match recorded writes in order.
  var checksTransitions: Bool { get }
  /// The recorded writes not yet matched, after the last one a block matched, in order.
  func transitionPoints() -> [TransitionPoint]
  /// Consumes, for what `reads` looked at, the changes up to `sequence`, and the events;
  /// returns the properties that changed more than once in that span, described.
  func consumeTransition(reads: Set<RecordedRead>, upTo sequence: Int, events: Set<Int>) -> [String]
}

/// A source location, as the failure messages of a tester use it.
package struct TesterLocation: Sendable {
  package let fileID: StaticString
  package let filePath: StaticString
  package let line: UInt
  package let column: UInt

  package init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }

  package func report(_ message: String) {
    reportIssue(message, fileID: fileID, filePath: filePath, line: line, column: column)
  }
}

/// The loops behind `assert` and `unwrap`, shared by ``ModelTester`` and the daemon tester.
package enum AssertionLoop {
  /// Evaluates `predicates` every 2 ms, recording what they read, until all hold (then
  /// consumes it) or `timeout` passes (then reports each that does not hold, with the
  /// values the block read, at `location`).
  nonisolated(nonsending) package static func assert(
    _ ledger: some AssertionLedger, timeout: Duration, location: TesterLocation, _ predicates: () -> [AssertionPredicate]
  ) async {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
      if let transitions = ledger as? any TransitionLedger, transitions.checksTransitions, ledger.hasRecordedEverything,
        matchTransition(transitions, location: location, predicates)
      {
        return
      }
      let scope = AssertionScope(tester: ledger)
      let (results, reads) = AssertionScope.$current.withValue(scope) { ReadRecording.recording(predicates) }
      if results.allSatisfy(\.passed), ledger.hasRecordedEverything {
        if let transitions = ledger as? any TransitionLedger, transitions.checksTransitions {
          report(skipped: transitions.consumeTransition(reads: reads, upTo: .max, events: scope.claimedEvents), at: location)
        } else {
          ledger.consume(reads: reads, events: scope.claimedEvents)
        }
        for call in scope.claimedProbeCalls { call.probe.consume(call.index) }
        return
      }
      if clock.now >= deadline || Task.isCancelled {
        let failures = results.enumerated().filter { !$0.element.passed }
        let text = failures.map { index, result in "  #\(index + 1) of \(results.count): \(result.failure)" }.joined(separator: "\n")
        let readText = reads.isEmpty ? "" : "\n  it read:\n" + ledger.describe(reads).map { "    " + $0 }.joined(separator: "\n")
        location.report("assert: not every predicate held within \(timeout):\n\(text)\(readText)")
        return
      }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// Evaluates `predicates` as of each recorded write not yet matched, in order; at the
  /// first where all hold, consumes what they read up to that write (reporting properties
  /// that changed more than once on the way) and returns true.
  private static func matchTransition(
    _ ledger: any TransitionLedger, location: TesterLocation, _ predicates: () -> [AssertionPredicate]
  ) -> Bool {
    for point in ledger.transitionPoints() {
      let scope = AssertionScope(tester: ledger)
      let (results, reads) = HistoricalReads.reading(point.states) {
        AssertionScope.$current.withValue(scope) { ReadRecording.recording(predicates) }
      }
      guard results.allSatisfy(\.passed) else { continue }
      report(skipped: ledger.consumeTransition(reads: reads, upTo: point.sequence, events: scope.claimedEvents), at: location)
      for call in scope.claimedProbeCalls { call.probe.consume(call.index) }
      return true
    }
    return false
  }

  private static func report(skipped: [String], at location: TesterLocation) {
    guard !skipped.isEmpty else { return }
    location.report(
      "expect (.transitions): the block held only after what it read changed more than once; expect each value in order:\n"
        + skipped.map { "  " + $0 }.joined(separator: "\n"))
  }

  /// Evaluates `value` every 2 ms until it is not nil (then consumes what it read and
  /// returns it) or `timeout` passes (then reports at `location` and throws).
  nonisolated(nonsending) package static func unwrap<Value>(
    _ ledger: some AssertionLedger, timeout: Duration, location: TesterLocation, _ value: () -> Value?
  ) async throws -> Value {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while true {
      let (result, reads) = ReadRecording.recording(value)
      if let result, ledger.hasRecordedEverything {
        // Reading it is asserting it: the changes that made it appear are consumed.
        ledger.consume(reads: reads, events: [])
        return result
      }
      if clock.now >= deadline || Task.isCancelled {
        location.report("unwrap: the value stayed nil for \(timeout)")
        throw UnwrapTimedOut(timeout: timeout)
      }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

  /// Waits up to half a second, on the caller's thread, for the tasks `running` returns to
  /// end (a task whose last write an `assert` saw may not have returned yet); returns those
  /// still running. Only waits when tasks run.
  package static func tasksStillRunning(_ running: () -> [String]) -> [String] {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(500))
    while true {
      let now = running()
      if now.isEmpty || clock.now >= deadline { return now }
      usleep(2_000)
    }
  }
  /// ``tasksStillRunning(_:)`` for an `async` end of a test: waits without blocking a thread.
  package static func tasksStillRunning(_ running: () -> [String]) async -> [String] {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: .milliseconds(500))
    while true {
      let now = running()
      if now.isEmpty || clock.now >= deadline { return now }
      try? await Task.sleep(for: .milliseconds(2))
    }
  }

}
