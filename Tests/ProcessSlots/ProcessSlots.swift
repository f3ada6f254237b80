import ArborLocking
import Foundation
import Testing

/// The slots of the tests that start processes: at most ``count`` such tests run at once,
/// in the order they asked, in every test target of the package (one process, one bound).
///
/// Swift Testing starts every test of the run at once. A test that starts a daemon and
/// a few `arborctl`s used to start them beside two hundred others doing the same: on a
/// 2-core machine with a cold page cache, each debug binary then waited seconds for its
/// turn to load, and a wait of the test's (20 s) expired before the program had run at
/// all (Docs/Testing.md, "A fresh machine"). A test takes a slot before its body runs,
/// so its deadlines count from when its processes can run.
///
/// Waiting for a slot suspends the test's task; it never holds a thread of the pool.
package enum ProcessSlots {
  /// `$ARBOR_TEST_PROCESS_SLOTS`, else twice the number of cores (at least 2).
  package static let count: Int = {
    if let configured = ProcessInfo.processInfo.environment["ARBOR_TEST_PROCESS_SLOTS"].flatMap({ Int($0) }), configured > 0 {
      return configured
    }
    return max(2, 2 * ProcessInfo.processInfo.activeProcessorCount)
  }()

  /// The slot the current test holds, if any.
  @TaskLocal package static var held: Slot?

  /// A slot taken: when it was asked for and when it was given.
  package struct Slot: Sendable {
    package let asked: ContinuousClock.Instant
    package let given: ContinuousClock.Instant
  }

  private struct State {
    var busy = 0
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private static let state = LockedState(State())

  /// Runs `body` with a slot: at once when the current task holds one already (a suite's
  /// trait and a test's own), else once one is free.
  package static func withSlot<T>(_ body: () async throws -> T) async throws -> T {
    if held != nil { return try await body() }
    let asked = ContinuousClock.now
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state -> Bool in
        guard state.busy < count else {
          state.waiting.append(continuation)
          return false
        }
        state.busy += 1
        return true
      }
      if now { continuation.resume() }
    }
    let slot = Slot(asked: asked, given: .now)
    defer {
      // The slot goes to the next in line (busy stays as it is) or becomes free.
      let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard !state.waiting.isEmpty else {
          state.busy -= 1
          return nil
        }
        return state.waiting.removeFirst()
      }
      next?.resume()
    }
    return try await $held.withValue(slot) { try await body() }
  }

  /// Records an issue when the current test starts `what` without holding a slot: every
  /// test that starts a process is marked `.startsProcesses` (its suite or itself).
  package static func expectHeld(
    _ what: @autoclosure () -> String,
    fileID: String = #fileID, filePath: String = #filePath, line: Int = #line, column: Int = #column
  ) {
    guard held == nil else { return }
    Issue.record(
      "this test starts \(what()) without a process slot: mark its suite (or the test) `.startsProcesses` (Docs/Testing.md, \"A fresh machine\")",
      sourceLocation: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
  }
}

/// The `.startsProcesses` trait: each test of the suite (or the test) runs once it has one
/// of the ``ProcessSlots``.
///
/// ```swift
/// @Suite(.startsProcesses) struct ArborctlTests {
///   @Test func status() async throws { try await withDaemon { … } }
/// }
/// ```
package struct StartsProcessesTrait: SuiteTrait, TestTrait, TestScoping {
  package var isRecursive: Bool { true }

  package func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    try await ProcessSlots.withSlot { try await function() }
  }
}

extension Trait where Self == StartsProcessesTrait {
  /// Each test runs once it has a process slot: for the tests that start daemons,
  /// `arborctl`, Python or any other program (see ``ProcessSlots``).
  package static var startsProcesses: Self { Self() }
}
