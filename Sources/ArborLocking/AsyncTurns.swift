/// Turns for async work that must run one at a time, given in the order they were asked
/// for. Waiting for a turn suspends; it never blocks a thread.
///
/// ```swift
/// let turns = AsyncTurns()
/// let saved = try await turns.take { try await saveInSeveralTransactions() }
/// ```
public final class AsyncTurns: Sendable {
  private struct State {
    var busy = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockedState(State())

  public init() {}

  /// Runs `body` once every earlier turn has ended.
  public func take<T>(_ body: () async throws -> T) async throws -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now = state.withLock { state -> Bool in
        guard state.busy else {
          state.busy = true
          return true
        }
        state.waiting.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
    defer {
      let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
        guard !state.waiting.isEmpty else {
          state.busy = false
          return nil
        }
        return state.waiting.removeFirst()
      }
      next?.resume()
    }
    return try await body()
  }
}
