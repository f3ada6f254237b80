import ArborLocking
import Dispatch
import IssueReporting

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Deadlines for what tests wait for.
///
/// Every wait in a test has a deadline and says what it waited for: a wait without one
/// turns a bug into a test run that never ends, with nothing to say which test hangs.
/// Use ``withDeadline(_:seconds:fileID:filePath:line:column:_:)`` for any awaited
/// operation, ``DeadlineIterator`` for the elements of an asynchronous sequence and
/// ``expectEventually(_:seconds:fileID:filePath:line:column:_:)`` for a condition.
///
/// ```swift
/// let value = try await withDeadline("the writer task") { await writer.value }
/// ```
public enum Deadline {
  /// How long a wait lasts unless the call says otherwise: `$ARBOR_TEST_DEADLINE_SECONDS`
  /// when set (slow builds, such as ThreadSanitizer's, may want more), otherwise 20 s. A
  /// wait ends as soon as what it waits for happens: the deadline only bounds failures.
  public static let defaultSeconds: Double = {
    guard let text = getenv("ARBOR_TEST_DEADLINE_SECONDS").map({ String(cString: $0) }),
      let seconds = Double(text), seconds > 0
    else { return 20 }
    return seconds
  }()

  /// The queue the timers fire on: Dispatch's own threads, not the cooperative pool, so a
  /// deadline expires even when every thread of the pool is busy or blocked.
  static let timers = DispatchQueue(label: "ArborTesting.Deadline.timers")

  /// `seconds` as a message shows it: `20`, `0.5`.
  static func format(_ seconds: Double) -> String {
    seconds == seconds.rounded() && abs(seconds) < 1e15 ? String(Int(seconds)) : String(seconds)
  }
}

/// A wait that did not end in time.
///
/// ```swift
/// DeadlineExceeded(what: "the change set of revision 3", seconds: 20).description
/// // "Timed out after 20 s waiting for the change set of revision 3"
/// ```
public struct DeadlineExceeded: Error, CustomStringConvertible, Sendable {
  /// What was waited for, as the caller named it.
  public var what: String
  /// How long it was waited for.
  public var seconds: Double

  public init(what: String, seconds: Double) {
    self.what = what
    self.seconds = seconds
  }

  public var description: String { "Timed out after \(Deadline.format(seconds)) s waiting for \(what)" }
}

/// Runs `operation` and returns its result, or fails after `seconds` if it has not
/// finished by then.
///
/// `operation` runs in a task of its own, raced against a timer on a Dispatch queue (not
/// on the cooperative pool). Whichever finishes first wins. On timeout the operation's
/// task is cancelled, the failure is recorded at the caller's line, as
/// "Timed out after 20 s waiting for `what`", and ``DeadlineExceeded`` is thrown. It is
/// thrown even when the operation ignores cancellation and never returns: the operation is
/// then left running, and the test goes on (or ends) without it. Errors of the operation
/// pass through. Cancelling the caller cancels the operation.
///
/// ```swift
/// let outcome = try await withDeadline("the call of incrementTapped") {
///   try await dispatcher.call("incrementTapped", on: .path("/counters/0/counter"))
/// }
/// ```
///
/// - Parameters:
///   - what: what is waited for, completing "waiting for …" in the failure message.
///   - seconds: how long to wait at most (``Deadline/defaultSeconds`` unless given).
///   - operation: the work to wait for.
public func withDeadline<T: Sendable>(
  _ what: @autoclosure () -> String,
  seconds: Double = Deadline.defaultSeconds,
  fileID: StaticString = #fileID,
  filePath: StaticString = #filePath,
  line: UInt = #line,
  column: UInt = #column,
  _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
  let race = DeadlineRace<T>()
  let task = Task {
    do {
      race.settle(.finished(.success(try await operation())))
    } catch {
      race.settle(.finished(.failure(error)))
    }
  }
  let timer = DispatchWorkItem { race.settle(.expired) }
  Deadline.timers.asyncAfter(deadline: .now() + seconds, execute: timer)
  let outcome = await withTaskCancellationHandler {
    await withCheckedContinuation { race.wait($0) }
  } onCancel: {
    task.cancel()
  }
  timer.cancel()
  switch outcome {
  case .finished(let result):
    return try result.get()
  case .expired:
    task.cancel()
    let error = DeadlineExceeded(what: what(), seconds: seconds)
    reportIssue(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
    throw error
  }
}

/// The race between an operation and its timer: the first to settle resumes the waiting
/// caller, exactly once.
final class DeadlineRace<T: Sendable>: Sendable {
  enum Outcome: Sendable {
    case finished(Result<T, any Error>)
    case expired
  }

  private struct State {
    var outcome: Outcome?
    var waiter: CheckedContinuation<Outcome, Never>?
  }

  private let state = LockedState(State())

  /// Settles the race with `outcome` unless it is settled already.
  func settle(_ outcome: Outcome) {
    let waiter = state.withLock { state -> CheckedContinuation<Outcome, Never>? in
      guard state.outcome == nil else { return nil }
      state.outcome = outcome
      defer { state.waiter = nil }
      return state.waiter
    }
    waiter?.resume(returning: outcome)
  }

  /// Resumes `waiter` with the outcome, now if the race is settled, otherwise when it is.
  func wait(_ waiter: CheckedContinuation<Outcome, Never>) {
    let outcome = state.withLock { state -> Outcome? in
      if let outcome = state.outcome { return outcome }
      state.waiter = waiter
      return nil
    }
    if let outcome { waiter.resume(returning: outcome) }
  }
}
