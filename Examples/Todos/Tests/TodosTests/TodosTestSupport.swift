import Arbor
import ArborTesting
import Dependencies
import Foundation
import Todos

/// A `TestClock` that counts the sleeps started on it, so that a test advances it only
/// once the model's timer or debounce is asleep: a sleep that starts after an advance
/// would wait for the next one.
final class SleepCountingClock: Clock, Sendable {
  typealias Duration = Swift.Duration
  typealias Instant = TestClock<Duration>.Instant

  let base = TestClock<Duration>()
  private let started = LockIsolated(0)
  private let cancelled = LockIsolated(0)

  var now: Instant { base.now }
  var minimumResolution: Duration { base.minimumResolution }
  /// How many sleeps have started so far.
  var sleepsStarted: Int { started.value }
  /// How many of them were cancelled before their deadline.
  var sleepsCancelled: Int { cancelled.value }

  func sleep(until deadline: Instant, tolerance: Duration?) async throws {
    // Counted once the deadline is fixed: an advance after this moment wakes this sleep.
    started.withValue { $0 += 1 }
    do {
      try await base.sleep(until: deadline, tolerance: tolerance)
    } catch {
      cancelled.withValue { $0 += 1 }
      throw error
    }
  }

  /// Waits (with the tests' deadline) until `count` sleeps have started in all.
  func waitForSleeps(_ count: Int, fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column) async {
    await expectEventually("\(count) sleeps to start on the test clock (\(sleepsStarted) so far)", fileID: fileID, filePath: filePath, line: line, column: column) {
      self.sleepsStarted >= count
    }
  }

  /// Advances the clock by `duration`, waking the sleeps it reaches.
  func advance(by duration: Duration) async {
    await base.advance(by: duration)
  }
}

/// The dependencies of every Todos test: a fixed "now" for due dates, and `clock` for the
/// items' timers and the list's debounce.
func todoDependencies(_ clock: SleepCountingClock) -> @Sendable (inout DependencyValues) -> Void {
  { values in
    values.date = .constant(Date(timeIntervalSinceReferenceDate: 0))
    values.continuousClock = clock
  }
}
