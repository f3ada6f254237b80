import ArborLocking
import Dispatch

/// Waits for an operation until a deadline, and no longer: at the deadline the caller is
/// resumed with the timeout's error whether or not the operation has ended.
///
/// A task group would not do: it waits for every child before it returns, so an operation
/// that never ends (a query on a connection the network cut, which closing did not fail)
/// would hold its caller past the deadline, and everything queued behind the caller
/// (a session's turns, a standby's reads) with it.
///
/// The timer is a Dispatch timer, not a sleeping task: a deadline must pass on time even
/// when the cooperative pool is busy (a test suite under load delayed a 200 ms
/// `Task.sleep` by 14 s).
///
/// ```swift
/// let rows = try await AnswerDeadline.run(within: .seconds(10)) {
///   try await connection.query("SELECT 1", logger: logger).collect()
/// } onTimeout: {
///   connection.close().whenComplete { _ in }
///   return StoreError(.unreachable, path: location, "the server did not answer within 10 seconds")
/// }
/// ```
enum AnswerDeadline {
  private struct State<T: Sendable> {
    var continuation: CheckedContinuation<T, any Error>?
    var settled = false
    var cancelled = false
    var work: Task<Void, Never>?
    var timer: DispatchWorkItem?
  }

  /// The queue the timers run on.
  private static let timers = DispatchQueue(label: "org.arbor.postgres.deadlines")

  /// Runs `operation` in a task of its own; returns its result, or throws what
  /// `onTimeout` returns once `timeout` has passed (the operation is then cancelled and
  /// left to end on its own), or `CancellationError` when the caller is cancelled.
  /// `onTimeout` runs on the timer's queue: it must not wait.
  static func run<T: Sendable>(
    within timeout: Duration,
    _ operation: @escaping @Sendable () async throws -> T,
    onTimeout: @escaping @Sendable () -> any Error
  ) async throws -> T {
    let state = LockedState(State<T>())
    /// Resumes the caller once, with the first result; false if it was already resumed.
    @Sendable func settle(_ result: Result<T, any Error>) -> Bool {
      let (continuation, work, timer) = state.withLock { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?, DispatchWorkItem?) in
        guard !state.settled else { return (nil, nil, nil) }
        state.settled = true
        defer { state.continuation = nil }
        return (state.continuation, state.work, state.timer)
      }
      guard let continuation else { return false }
      work?.cancel()
      timer?.cancel()
      continuation.resume(with: result)
      return true
    }
    return try await withTaskCancellationHandler {
      try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let cancelledAlready = state.withLock { state -> Bool in
          state.continuation = continuation
          return state.cancelled
        }
        if cancelledAlready {
          _ = settle(.failure(CancellationError()))
          return
        }
        let work = Task {
          let result: Result<T, any Error>
          do { result = .success(try await operation()) } catch { result = .failure(error) }
          _ = settle(result)
        }
        let timer = DispatchWorkItem {
          guard !state.withLock({ $0.settled }) else { return }
          _ = settle(.failure(onTimeout()))
        }
        let settledAlready = state.withLock { state -> Bool in
          state.work = work
          state.timer = timer
          return state.settled
        }
        // Settled before the tasks were kept (the operation was that quick): nothing
        // else may run.
        if settledAlready {
          work.cancel()
          return
        }
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        timers.asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: nanoseconds)), execute: timer)
      }
    } onCancel: {
      state.withLock { $0.cancelled = true }
      _ = settle(.failure(CancellationError()))
    }
  }
}
