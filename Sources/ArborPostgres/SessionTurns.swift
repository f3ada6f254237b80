import ArborLocking

/// Turns at a session for transactions: PostgreSQL runs a connection's statements in the
/// order they arrive, so a statement another task sends while a transaction is open would
/// run inside it (and `SET TRANSACTION` must come first). Whoever runs a transaction on a
/// shared session waits for its turn; the turns are given in order.
///
/// ```swift
/// let turns = SessionTurns()
/// let value = try await turns.take { try await readInOneTransaction() }
/// ```
final class SessionTurns: Sendable {
  private struct State {
    var busy = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockedState(State())

  /// Runs `body` alone: after every earlier turn has ended.
  func take<T>(_ body: () async throws -> T) async throws -> T {
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
