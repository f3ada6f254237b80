import ArborLocking

/// The tasks one intent call started, directly or through tasks of its own: counted so that
/// a caller can wait until all have ended (``IntentWait/settled``).
///
/// `node.task` counts its task in the work of the intent it was started from (a task-local,
/// which the tasks it starts inherit), before the task exists, so the count cannot reach
/// zero while work is still being started.
final class IntentWork: Sendable {
  @TaskLocal static var current: IntentWork?

  private struct State {
    var running = 0
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockedState(State())

  func started() { state.withLock { $0.running += 1 } }

  func ended() {
    let waiters: [CheckedContinuation<Void, Never>] = state.withLock { state in
      state.running -= 1
      guard state.running == 0 else { return [] }
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns once no counted task is running.
  func settled() async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
      let now: Bool = state.withLock { state in
        if state.running == 0 { return true }
        state.waiters.append(continuation)
        return false
      }
      if now { continuation.resume() }
    }
  }
}
