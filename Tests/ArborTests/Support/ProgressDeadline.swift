import ArborTesting
import ConcurrencyExtras
import Dispatch
import IssueReporting

/// Runs `operation` and returns its result, or fails once what it waits for has made no
/// progress for `seconds`.
///
/// For work of many steps that other tasks do (writers, readers, snapshots taken in
/// between): `progress` counts the steps done so far (a revision, a tally the steps add
/// to), and the deadline is about those steps, not about the clock: a slow machine, or
/// one whose cooperative pool is shared with the rest of a parallel run, takes longer
/// while each step still comes; work that hangs (a deadlock, a task that never runs, a
/// handoff that never happens) makes no progress and fails after `seconds`, at the
/// caller's line, as
/// "No progress for 20 s waiting for the writers (stuck at 300 steps, 24.5 s in all)".
/// `progress` must count only finite work: a step that can repeat for ever (a reader
/// spinning while the writer hangs) would hide the hang.
///
/// It is checked every 100 ms from a Dispatch queue, not from the cooperative pool. On
/// expiry the operation's task is cancelled and ``NoProgress`` is thrown, even when the
/// operation ignores cancellation; errors of the operation pass through.
///
/// ```swift
/// let written = Tally()
/// try await withProgressDeadline("2,000 transactions", progress: { written.value }) {
///   for step in 1...2_000 { leaf.value = step; written.add() }
/// }
/// ```
func withProgressDeadline<T: Sendable>(
  _ what: @autoclosure () -> String,
  seconds: Double = Deadline.defaultSeconds,
  progress: @escaping @Sendable () -> Int,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let race = ProgressRace<T>()
  let start = DispatchTime.now()
  let task = Task {
    do {
      race.settle(.finished(.success(try await operation())))
    } catch {
      race.settle(.finished(.failure(error)))
    }
  }
  let watch = ProgressWatch(seconds: seconds, progress: progress) { stuckAt in race.settle(.stalled(stuckAt)) }
  let outcome = await withTaskCancellationHandler {
    await withCheckedContinuation { race.wait($0) }
  } onCancel: {
    task.cancel()
  }
  watch.stop()
  switch outcome {
  case .finished(let result):
    return try result.get()
  case .stalled(let stuckAt):
    task.cancel()
    let elapsed = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    let error = NoProgress(what: what(), seconds: seconds, stuckAt: stuckAt, elapsed: elapsed)
    reportIssue(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
    throw error
  }
}

/// Work that stopped making progress before it finished.
struct NoProgress: Error, CustomStringConvertible, Sendable {
  var what: String
  /// How long nothing moved.
  var seconds: Double
  /// The progress count it stayed at.
  var stuckAt: Int
  /// How long it was waited for in all.
  var elapsed: Double

  var description: String {
    let elapsedText = (elapsed * 10).rounded() / 10
    return "No progress for \(Self.format(seconds)) s waiting for \(what) (stuck at \(stuckAt) steps, \(elapsedText) s in all)"
  }

  private static func format(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
  }
}

/// Samples `progress` every 100 ms on a queue of its own; calls `stalled` once when it has
/// not changed for `seconds`.
private final class ProgressWatch {
  private let timer: any DispatchSourceTimer

  init(seconds: Double, progress: @escaping @Sendable () -> Int, stalled: @escaping @Sendable (Int) -> Void) {
    let queue = DispatchQueue(label: "ArborTests.ProgressWatch")
    let state = LockIsolated((last: progress(), since: DispatchTime.now(), fired: false))
    timer = DispatchSource.makeTimerSource(queue: queue)
    timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100))
    timer.setEventHandler {
      let now = DispatchTime.now()
      let current = progress()
      let stuckAt: Int? = state.withValue { state in
        if current != state.last {
          state.last = current
          state.since = now
          return nil
        }
        guard !state.fired, Double(now.uptimeNanoseconds - state.since.uptimeNanoseconds) / 1e9 >= seconds else { return nil }
        state.fired = true
        return current
      }
      if let stuckAt { stalled(stuckAt) }
    }
    timer.resume()
  }

  func stop() { timer.cancel() }
}

/// The race between an operation and its watch: the first to settle resumes the caller,
/// exactly once.
private final class ProgressRace<T: Sendable>: Sendable {
  enum Outcome: Sendable {
    case finished(Result<T, any Error>)
    case stalled(Int)
  }

  private struct State {
    var outcome: Outcome?
    var waiter: CheckedContinuation<Outcome, Never>?
  }

  private let state = LockIsolated(State())

  func settle(_ outcome: Outcome) {
    let waiter = state.withValue { state -> CheckedContinuation<Outcome, Never>? in
      guard state.outcome == nil else { return nil }
      state.outcome = outcome
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: outcome)
  }

  func wait(_ waiter: CheckedContinuation<Outcome, Never>) {
    let outcome = state.withValue { state -> Outcome? in
      if let outcome = state.outcome { return outcome }
      state.waiter = waiter
      return nil
    }
    if let outcome { waiter.resume(returning: outcome) }
  }
}
