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
  struct PendingChange: Sendable {
    let read: RecordedRead
    let path: String
    let value: String
    let revision: UInt64
  }

  struct PendingEvent: Sendable {
    let id: Int
    let event: EmittedEvent
  }

  private struct State: Sendable {
    var exhaustivity: Exhaustivity
    var showSkippedAssertions = false
    var changes: [PendingChange] = []
    var events: [PendingEvent] = []
    var nextEventID = 0
    var probes: [TestProbe] = []
    var overflowed = false
  }

  /// The tester's state, shared with the listeners it installs.
  private final class Ledger: Sendable {
    let state: PthreadLocked<State>
    init(_ state: State) { self.state = PthreadLocked(state) }
    func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }
  }

  private let anchor: ModelAnchor<Root>
  private let state: Ledger
  private let location: TesterLocation
  private let listener = PthreadLocked<ChangeSetListener?>(nil)
  private let eventTap = PthreadLocked<EventTap?>(nil)

  init(anchor: ModelAnchor<Root>, exhaustivity: Exhaustivity, location: TesterLocation) {
    self.anchor = anchor
    self.state = Ledger(State(exhaustivity: exhaustivity))
    self.location = location
    let state = self.state
    listener.withLock {
      $0 = anchor.listen { delivery in
        switch delivery {
        case .committed(let changeSet):
          let pending = changeSet.changes.map { change in
            PendingChange(
              read: RecordedRead(modelID: change.modelID, modelType: change.modelType, property: change.property),
              path: change.valuePath.description, value: Self.describe(change), revision: changeSet.revision)
          }
          state.withLock { $0.changes.append(contentsOf: pending) }
        case .overflowed:
          state.withLock { $0.overflowed = true }
        }
      }
    }
    eventTap.withLock {
      $0 = anchor.tapEvents { event in
        state.withLock { state in
          state.events.append(PendingEvent(id: state.nextEventID, event: event))
          state.nextEventID += 1
        }
      }
    }
  }

  /// What must be asserted by the end of the test; settable at any time.
  public var exhaustivity: Exhaustivity {
    get { state.withLock { $0.exhaustivity } }
    set { state.withLock { $0.exhaustivity = newValue } }
  }

  /// Print what was left unasserted at the end instead of failing the test.
  public var showSkippedAssertions: Bool {
    get { state.withLock { $0.showSkippedAssertions } }
    set { state.withLock { $0.showSkippedAssertions = newValue } }
  }

  /// Includes a probe's calls in the `.probes` exhaustivity check.
  public func install(_ probe: TestProbe) {
    state.withLock { $0.probes.append(probe) }
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
  public func assert(
    timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    @AssertionBuilder _ predicates: () -> [AssertionPredicate]
  ) async {
    await AssertionLoop.assert(self, timeout: timeout, location: .init(fileID: fileID, filePath: filePath, line: line, column: column), predicates)
  }

  /// Waits until `value` is not nil and returns it; past `timeout`, reports a failure at
  /// this line and throws.
  ///
  /// ```swift
  /// let row = try await tester.unwrap(model.counters.first)
  /// row.counter.incrementTapped()
  /// ```
  public func unwrap<Value>(
    _ value: @autoclosure () -> Value?, timeout: Duration = ModelTesterDefaults.timeout,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> Value {
    try await AssertionLoop.unwrap(self, timeout: timeout, location: .init(fileID: fileID, filePath: filePath, line: line, column: column), value)
  }

  /// `TesterCounter.count = 1 (at /count)`, for each read, from the tree's state now.
  package func describe(_ reads: Set<RecordedRead>) -> [String] {
    TesterReport.describe(reads, in: (try? anchor.snapshotRecord())?.state, missing: "(not state)")
  }

  package func consume(reads: Set<RecordedRead>, events: Set<Int>) {
    state.withLock { state in
      state.changes.removeAll { reads.contains($0.read) }
      state.events.removeAll { events.contains($0.id) }
    }
  }

  deinit {
    listener.withLock { $0 = nil }
    eventTap.withLock { $0 = nil }
    let state = self.state.withLock { $0 }
    let required = state.exhaustivity
    var sections: [String] = []
    if required.contains(.state) {
      if state.overflowed { sections.append("State changes: more than the tester could keep; assert sooner.") }
      if !state.changes.isEmpty {
        sections.append("State changes not asserted:\n" + Self.group(state.changes).map { "  " + $0 }.joined(separator: "\n"))
      }
    }
    if required.contains(.events), !state.events.isEmpty {
      sections.append(
        "Events not asserted (didSend):\n"
          + state.events.map { "  \($0.event.type).\(String(describing: $0.event.event)) from \($0.event.sourceType) at \(Self.text($0.event.sourcePath.description))" }
          .joined(separator: "\n"))
    }
    if required.contains(.tasks), let running = TesterReport.runningTasks(of: anchor) { sections.append(running) }
    if required.contains(.probes), let calls = TesterReport.unassertedCalls(of: state.probes) { sections.append(calls) }
    guard !sections.isEmpty else { return }
    let message = sections.joined(separator: "\n\n")
    if state.showSkippedAssertions {
      print("Skipped assertions of \(Root.self) (showSkippedAssertions):\n\(message)")
    } else {
      location.report("Exhaustive test of \(Root.self) left these unasserted:\n\n\(message)")
    }
  }
}

extension ModelTester: AssertionLedger {
  package func firstPendingEvent(excluding excluded: Set<Int>, where matches: (TestedEvent) -> Bool) -> Int? {
    let events = state.withLock { $0.events }
    return events.first { pending in
      !excluded.contains(pending.id) && matches(TestedEvent(sourceID: pending.event.source, value: pending.event.event, json: nil))
    }?.id
  }
}

extension ModelTester {
  static func describe(_ change: Change) -> String {
    switch change.operation {
    case .remove: return "removed"
    default: return change.value?.jsonString ?? "(not JSON)"
    }
  }

  /// `CounterModel.count at /counters/0/counter/count: 1 → 2 (revisions 3, 4)`, one line per property.
  static func group(_ changes: [PendingChange]) -> [String] {
    var order: [RecordedRead] = []
    var byRead: [RecordedRead: [PendingChange]] = [:]
    for change in changes {
      if byRead[change.read] == nil { order.append(change.read) }
      byRead[change.read, default: []].append(change)
    }
    return order.map { read in
      let all = byRead[read]!
      let revisions = all.map { String($0.revision) }.joined(separator: ", ")
      return "\(read.modelType).\(read.property) at \(text(all.last!.path)): \(all.map(\.value).joined(separator: " → ")) (revision\(all.count == 1 ? "" : "s") \(revisions))"
    }
  }

  static func text(_ path: String) -> String { path.isEmpty ? "/" : path }

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
    let (model, anchor) = andAnchor(dependencies)
    let tester = ModelTester(
      anchor: anchor, exhaustivity: exhaustivity, location: .init(fileID: fileID, filePath: filePath, line: line, column: column))
    return (model, tester)
  }
}
