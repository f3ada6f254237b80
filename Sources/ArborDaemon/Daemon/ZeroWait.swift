import ArborLocking

/// Lets tasks wait, with a deadline, until a count kept elsewhere reaches zero (the intents
/// in flight, the open connections), woken by the owner of the count instead of polling it.
///
/// ```swift
/// let drained = ZeroWait()
/// // where the count drops: if count == 0 { drained.signal() }
/// let done = await drained.wait(until: .now + .seconds(10)) { count == 0 }
/// ```
final class ZeroWait: Sendable {
  private struct State {
    var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Waits that ended (deadline, cancellation) before their continuation was stored.
    var ended: Set<Int> = []
    var nextID = 0
  }

  private let state = LockedState(State())

  /// Wakes every waiter; each checks its condition again. Call it where the count reaches
  /// zero, with no lock held.
  func signal() {
    let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
      // The common case (each intent that ends with none other running): nobody waits.
      guard !state.waiters.isEmpty else { return [] }
      defer { state.waiters = [:] }
      return Array(state.waiters.values)
    }
    for waiter in waiters { waiter.resume() }
  }

  /// Returns true once `isZero()` holds, false at `deadline` or when the task is cancelled.
  /// `isZero` is read after the wait is registered, so a signal cannot fall in between.
  func wait(until deadline: ContinuousClock.Instant, isZero: @escaping @Sendable () -> Bool) async -> Bool {
    while !isZero() {
      guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
      let id = state.withLock { state in
        defer { state.nextID += 1 }
        return state.nextID
      }
      let timer = Task {
        // Only a deadline that passed ends the wait; a cancelled timer does nothing.
        guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return }
        self.end(id)
      }
      await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
          let resumeNow = state.withLock { state -> Bool in
            if state.ended.remove(id) != nil { return true }
            state.waiters[id] = continuation
            return false
          }
          if resumeNow || isZero() { end(id, resuming: resumeNow ? continuation : nil) }
        }
      } onCancel: {
        end(id)
      }
      timer.cancel()
      state.withLock { _ = $0.ended.remove(id) }
    }
    return true
  }

  /// Ends wait `id`: resumes it if it waits, or notes it so that it does not start waiting.
  private func end(_ id: Int, resuming continuation: CheckedContinuation<Void, Never>? = nil) {
    if let continuation {
      continuation.resume()
      return
    }
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if let waiter = state.waiters.removeValue(forKey: id) { return waiter }
      state.ended.insert(id)
      return nil
    }
    waiter?.resume()
  }
}
