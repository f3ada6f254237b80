import ArborLocking
@testable import ArborPostgres
import ArborTesting
import Testing

/// The deadline of a question to the server holds even when the question never ends.
@Suite struct AnswerDeadlineTests {
  struct TimedOut: Error {}
  struct Failed: Error, Equatable {}

  /// An operation that ignores cancellation and ends only when let go.
  final class Stuck: Sendable {
    private let waiter = LockedState<CheckedContinuation<Void, Never>?>(nil)
    private let released = LockedState(false)

    func wait() async {
      await withCheckedContinuation { continuation in
        let now = released.withLock { released -> Bool in
          if released { return true }
          waiter.withLock { $0 = continuation }
          return false
        }
        if now { continuation.resume() }
      }
    }

    func release() {
      let waiting = released.withLock { released -> CheckedContinuation<Void, Never>? in
        released = true
        return waiter.withLock { waiter in
          defer { waiter = nil }
          return waiter
        }
      }
      waiting?.resume()
    }
  }

  @Test func anOperationThatNeverEndsIsLeftAtTheDeadline() async throws {
    let stuck = Stuck()
    let timeouts = LockedState(0)
    // A caller held past the deadline would wait for ever: the test's own deadline (a
    // Dispatch timer, as the one under test) names it instead of hanging.
    let outcome = try await withDeadline("the caller to be answered at the deadline of 200 ms", seconds: 60) {
      do {
        return try await AnswerDeadline.run(within: .milliseconds(200)) {
          await stuck.wait()
          return "answered"
        } onTimeout: {
          timeouts.withLock { $0 += 1 }
          return TimedOut()
        }
      } catch {
        return "\(type(of: error))"
      }
    }
    #expect(outcome == "TimedOut")
    #expect(timeouts.withLock { $0 } == 1)
    stuck.release()
  }

  /// Answers and errors pass through; the timer is not the one that answers. (The
  /// deadline is long: the answers come in microseconds, but a test suite under load can
  /// keep a task from running for seconds.)
  @Test func aQuickAnswerOrErrorComesBackAsItIs() async throws {
    let timeouts = LockedState(0)
    for value in 0..<200 {
      let answer = try await AnswerDeadline.run(within: .seconds(30)) { value * 2 } onTimeout: {
        timeouts.withLock { $0 += 1 }
        return TimedOut()
      }
      #expect(answer == value * 2)
    }
    #expect(timeouts.withLock { $0 } == 0)
    await #expect(throws: Failed.self) {
      try await AnswerDeadline.run(within: .seconds(30)) { () async throws -> Int in throw Failed() } onTimeout: { TimedOut() }
    }
  }

  @Test func aCancelledCallerIsAnsweredAtOnceEvenIfTheOperationIgnoresIt() async throws {
    let stuck = Stuck()
    let caller = Task {
      try await AnswerDeadline.run(within: .seconds(600)) {
        await stuck.wait()
        return 1
      } onTimeout: { TimedOut() }
    }
    try await Task.sleep(for: .milliseconds(50))
    caller.cancel()
    let result = try await withDeadline("the cancelled caller to be answered", seconds: 60) { await caller.result }
    #expect(throws: CancellationError.self) { try result.get() }
    stuck.release()
  }
}
