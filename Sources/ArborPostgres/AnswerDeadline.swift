import ArborLocking

/// Waits for an operation until a deadline, and no longer: at the deadline the caller is
/// resumed with the timeout's error whether or not the operation has ended.
///
/// A task group would not do: it waits for every child before it returns, so an operation
/// that never ends (a query on a connection the network cut, which closing did not fail)
/// would hold its caller past the deadline, and everything queued behind the caller
/// (a session's turns, a standby's reads) with it.
///
/// ```swift
/// let rows = try await AnswerDeadline.run(within: .seconds(10)) {
///   try await connection.query("SELECT 1", logger: logger).collect()
/// } onTimeout: {
///   try? await connection.close()
///   return StoreError(.unreachable, path: location, "the server did not answer within 10 seconds")
/// }
/// ```
enum AnswerDeadline {
  private struct State<T: Sendable>: Sendable {
    var continuation: CheckedContinuation<T, any Error>?
    var settled = false
    var cancelled = false
    var work: Task<Void, Never>?
    var timer: Task<Void, Never>?
  }

  /// Runs `operation` in a task of its own; returns its result, or throws what
  /// `onTimeout` returns once `timeout` has passed (the operation is then cancelled and
  /// left to end on its own), or `CancellationError` when the caller is cancelled.
  static func run<T: Sendable>(
    within timeout: Duration,
    _ operation: @escaping @Sendable () async throws -> T,
    onTimeout: @escaping @Sendable () async -> any Error
  ) async throws -> T {
    let state = LockedState(State<T>())
    /// Resumes the caller once, with the first result; false if it was already resumed.
    @Sendable func settle(_ result: Result<T, any Error>) -> Bool {
      let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
        guard !state.settled else { return (nil, []) }
        state.settled = true
        defer { state.continuation = nil }
        return (state.continuation, [state.work, state.timer].compactMap { $0 })
      }
      guard let continuation else { return false }
      for task in tasks { task.cancel() }
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
        let timer = Task {
          do { try await Task.sleep(for: timeout) } catch { return }
          let error = await onTimeout()
          _ = settle(.failure(error))
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
          timer.cancel()
        }
      }
    } onCancel: {
      state.withLock { $0.cancelled = true }
      _ = settle(.failure(CancellationError()))
    }
  }
}
