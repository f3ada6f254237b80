import ConcurrencyExtras

/// Work that ignores cancellation: `wait()` returns only once `open()` was called.
///
/// ```swift
/// let gate = Gate()
/// Task { await gate.wait() }   // cancelling this task changes nothing
/// gate.open()
/// ```
final class Gate: Sendable {
  private struct State {
    var isOpen = false
    var waiters: [CheckedContinuation<Void, Never>] = []
  }

  private let state = LockIsolated(State())

  func wait() async {
    await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
      let openNow = state.withValue { state -> Bool in
        if state.isOpen { return true }
        state.waiters.append(waiter)
        return false
      }
      if openNow { waiter.resume() }
    }
  }

  func open() {
    let waiters = state.withValue { state -> [CheckedContinuation<Void, Never>] in
      state.isOpen = true
      defer { state.waiters = [] }
      return state.waiters
    }
    for waiter in waiters { waiter.resume() }
  }
}
