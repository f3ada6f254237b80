import Arbor

/// The testing of one test body: every root it anchors with `withAnchor()` (or
/// `andAnchor()`, `returningAnchor()`) is followed by one ledger, which `expect`,
/// `require`, `settle` and `withExhaustivity` use, and which reports what was left
/// unasserted when the body ends.
package final class ModelTestingScope: AnchoringObserver {
  @TaskLocal package static var current: ModelTestingScope?

  package let ledger: TesterLedger
  private let report: @Sendable (String) -> Void

  init(exhaustivity: Exhaustivity, report: @escaping @Sendable (String) -> Void) {
    self.ledger = TesterLedger(exhaustivity: exhaustivity)
    self.report = report
  }

  package func didAnchor<Root: Model>(_ anchor: ModelAnchor<Root>) {
    ledger.follow(anchor)
  }

  /// Runs `body` as the scope's test body, then reports what it left unasserted and lets
  /// its trees go.
  nonisolated(nonsending) func run<R>(_ body: () async throws -> R) async rethrows -> R {
    defer { ledger.release() }
    let result = try await Self.$current.withValue(self) {
      try await AnchoringObservation.$observer.withValue(self) { try await body() }
    }
    await finish()
    return result
  }

  /// Reports what was left unasserted; waits up to half a second for required tasks first.
  nonisolated(nonsending) private func finish() async {
    let ledger = self.ledger
    let running = ledger.exhaustivity.contains(.tasks) ? await AssertionLoop.tasksStillRunning { ledger.requiredTasks } : []
    let sections = ledger.leftovers(runningTasks: running)
    guard !sections.isEmpty else { return }
    report("Exhaustive model test left these unasserted:\n\n" + sections.joined(separator: "\n\n"))
  }
}

/// Runs `body` as a model test: a plain `withAnchor()` inside it is a tested root, and
/// `expect`, `require`, `settle` and `withExhaustivity` work as under the `.modelTesting`
/// trait. What is left unasserted when `body` returns is reported at this line.
///
/// ```swift
/// @Test func addingACounter() async {
///   await withModelTesting {
///     let model = AppModel().withAnchor()
///     model.addButtonTapped()
///     await expect(model.counters.count == 1)
///   }
/// }
/// ```
nonisolated(nonsending) public func withModelTesting<R>(
  exhaustivity: Exhaustivity = .full,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
  _ body: () async throws -> R
) async rethrows -> R {
  let location = TesterLocation(fileID: fileID, filePath: filePath, line: line, column: column)
  return try await ModelTestingScope(exhaustivity: exhaustivity) { location.report($0) }.run(body)
}
