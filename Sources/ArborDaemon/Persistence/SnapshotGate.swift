import ArborLocking

/// Lets one snapshot be saved at a time: a compaction, a rebase and the final snapshot
/// each write a record in several transactions, and two of the same revision at once
/// would write each other's parts. Waiting here suspends; it never blocks a thread.
final class SnapshotGate: Sendable {
  private struct State {
    var busy = false
    var waiting: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockedState(State())

  /// Runs `body` once no other body of this gate runs.
  func run<T: Sendable>(_ body: () async throws -> T) async throws -> T {
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
