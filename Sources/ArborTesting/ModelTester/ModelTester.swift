import ArborLocking
import Arbor
import ArborJSON
import Dependencies
import Foundation
import IssueReporting

/// Drives exhaustive tests of a model tree: `assert { … }` waits until its predicates hold
/// and consumes what they looked at; when the tester goes away at the end of the test,
/// every state change, event, task and probe call left unasserted is reported as a test
/// failure at the line that created it.
///
/// ```swift
/// @Test func addingACounter() async {
///   let (model, tester) = AppModel().andTester { $0.factClient.fetch = { "\($0) is a good number." } }
///   model.addButtonTapped()
///   await tester.assert { model.counters.count == 1 }
/// }
/// ```
///
/// Keep the tester until the end of the test (`let (model, _) = …` would end the tree at
/// once). Failures go through IssueReporting: they fail Swift Testing and XCTest tests alike.
public final class ModelTester<Root: Model>: Sendable {
  private let ledger: TesterLedger
  private let location: TesterLocation
  private let showsSkipped = LockedState(false)

  init(anchor: ModelAnchor<Root>, exhaustivity: Exhaustivity, location: TesterLocation) {
    self.ledger = TesterLedger(exhaustivity: exhaustivity)
    self.location = location
    ledger.follow(anchor)
  }

  /// What must be asserted by the end of the test; settable at any time.
  public var exhaustivity: Exhaustivity {
    get { ledger.exhaustivity }
    set { ledger.exhaustivity = newValue }
  }

  /// Print, at the end of the test, what was left unasserted instead of failing the test,
  /// and also what the tester's ``exhaustivity`` does not require: the assertions a
  /// non-exhaustive test skipped.
  ///
  /// ```swift
  /// let (model, tester) = AppModel().andTester(exhaustivity: .off)
  /// tester.showSkippedAssertions = true   // prints the changes, events, tasks and calls left
  /// ```
  public var showSkippedAssertions: Bool {
    get { showsSkipped.withLock { $0 } }
    set { showsSkipped.withLock { $0 = newValue } }
  }

  /// Includes a probe's calls in the `.probes` exhaustivity check. (A probe made inside a
  /// `.modelTesting` test is included in that test's check without it.)
  public func install(_ probe: TestProbe) {
    ledger.install(probe)
  }

  /// Waits until every predicate holds, then consumes the state changes they read, the
  /// events `didSend` matched and the probe calls `wasCalled` matched. Past `timeout`, it
  /// reports each predicate that does not hold, at this line, and consumes nothing.
  ///
  /// ```swift
  /// await tester.assert {
  ///   model.count == 42              // a diff on failure
  ///   model.title.hasPrefix("A")     // a plain Bool
  /// }
  /// ```
  nonisolated(nonsending) public func assert(
    timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    @AssertionBuilder _ predicates: () -> [AssertionPredicate]
  ) async {
    await AssertionLoop.assert(ledger, timeout: timeout, location: .init(fileID: fileID, filePath: filePath, line: line, column: column), predicates)
  }

  /// Waits until `value` is not nil and returns it; past `timeout`, reports a failure at
  /// this line and throws.
  ///
  /// ```swift
  /// let row = try await tester.unwrap(model.counters.first)
  /// row.counter.incrementTapped()
  /// ```
  nonisolated(nonsending) public func unwrap<Value>(
    _ value: @autoclosure () -> Value?, timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> Value {
    try await AssertionLoop.unwrap(ledger, timeout: timeout, location: .init(fileID: fileID, filePath: filePath, line: line, column: column), value)
  }

  deinit {
    let required = ledger.exhaustivity
    let showsSkipped = showSkippedAssertions
    let running = required.contains(.tasks) ? AssertionLoop.tasksStillRunning { ledger.requiredTasks } : []
    let sections = ledger.leftovers(runningTasks: running)
    // What exhaustivity left out is printed when asked for: the assertions the test skipped.
    let excluded = Exhaustivity.full.subtracting(required)
    let skipped =
      showsSkipped && !excluded.isEmpty
      ? ledger.leftovers(runningTasks: excluded.contains(.tasks) ? ledger.requiredTasks : [], of: excluded) : []
    ledger.release()
    if !skipped.isEmpty {
      SkippedAssertions.write(
        "Skipped assertions of \(Root.self) (not required by its exhaustivity, shown by showSkippedAssertions):\n"
          + skipped.joined(separator: "\n\n"))
    }
    guard !sections.isEmpty else { return }
    let message = sections.joined(separator: "\n\n")
    if showsSkipped {
      SkippedAssertions.write("Skipped assertions of \(Root.self) (showSkippedAssertions):\n\(message)")
    } else {
      location.report("Exhaustive test of \(Root.self) left these unasserted:\n\n\(message)")
    }
  }
}

/// `unwrap` did not see a value in time.
public struct UnwrapTimedOut: Error, CustomStringConvertible {
  public let timeout: Duration
  public var description: String { "the value stayed nil for \(timeout)" }
}

/// The testers' defaults.
public enum ModelTesterDefaults {
  /// How long `assert` and `unwrap` wait: as long as every other wait of the tests,
  /// ``Deadline/defaultSeconds`` (20 s, or `$ARBOR_TEST_DEADLINE_SECONDS`). A wait ends as
  /// soon as its predicates hold; the timeout only bounds failures.
  public static let timeout: Duration = .milliseconds(Int64(Deadline.defaultSeconds * 1000))
}

extension Model {
  /// Anchors this model as the root of a tree under a ``ModelTester``; returns both.
  /// `dependencies` overrides dependencies as `andAnchor` does (tests get each
  /// dependency's `testValue` otherwise).
  ///
  /// ```swift
  /// let (model, tester) = AppModel().andTester { $0.factClient.fetch = { "\($0) is a good number." } }
  /// let (quiet, _ignored) = AppModel().andTester(exhaustivity: .off)
  /// ```
  public func andTester(
    exhaustivity: Exhaustivity = .full,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ dependencies: (inout DependencyValues) -> Void = { _ in }
  ) -> (Self, ModelTester<Self>) {
    // Not a root of an enclosing `.modelTesting` scope: this tester checks it.
    let (model, anchor) = AnchoringObservation.$observer.withValue(nil) { andAnchor(dependencies) }
    let tester = ModelTester(
      anchor: anchor, exhaustivity: exhaustivity, location: .init(fileID: fileID, filePath: filePath, line: line, column: column))
    return (model, tester)
  }
}
