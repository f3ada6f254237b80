import Synchronization

/// The buffer between a tree's commits and one consumer of its change sets.
///
/// Commits append under the tree lock (appending never runs consumer code); the consumer
/// takes change sets in order. Unbounded: a consumer that stops reading keeps what it
/// has not read.
final class ChangeSubscription: Sendable {
  private struct State {
    var buffer: [ChangeSet] = []
    var head = 0
    var waiter: CheckedContinuation<ChangeSet?, Never>?
    var finished = false
  }

  private let state = Mutex(State())
  /// Called once when the consumer goes away, to unsubscribe from the tree.
  private let onTermination: Mutex<(@Sendable () -> Void)?>

  init(onTermination: @escaping @Sendable () -> Void) {
    self.onTermination = Mutex(onTermination)
  }

  /// Delivers a change set. Called with the tree lock held.
  func yield(_ changeSet: ChangeSet) {
    let waiter: CheckedContinuation<ChangeSet?, Never>? = state.withLock {
      guard !$0.finished else { return nil }
      if let waiter = $0.waiter {
        $0.waiter = nil
        return waiter
      }
      $0.buffer.append(changeSet)
      return nil
    }
    waiter?.resume(returning: changeSet)
  }

  /// Ends the subscription: the consumer gets what is buffered, then nil.
  func finish() {
    let waiter: CheckedContinuation<ChangeSet?, Never>? = state.withLock {
      $0.finished = true
      let waiter = $0.waiter
      $0.waiter = nil
      return waiter
    }
    waiter?.resume(returning: nil)
  }

  /// The next change set, or nil once finished or when the consuming task is cancelled.
  func next() async -> ChangeSet? {
    if let ready = takeBuffered() { return ready }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<ChangeSet?, Never>) in
        let immediate: ChangeSet?? = state.withLock {
          if $0.head < $0.buffer.count {
            let changeSet = $0.buffer[$0.head]
            $0.head += 1
            return .some(changeSet)
          }
          if $0.finished || Task.isCancelled { return .some(nil) }
          $0.waiter = continuation
          return .none
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      let waiter: CheckedContinuation<ChangeSet?, Never>? = state.withLock {
        let waiter = $0.waiter
        $0.waiter = nil
        return waiter
      }
      waiter?.resume(returning: nil)
    }
  }

  private func takeBuffered() -> ChangeSet? {
    state.withLock {
      guard $0.head < $0.buffer.count else { return nil }
      let changeSet = $0.buffer[$0.head]
      $0.head += 1
      if $0.head == $0.buffer.count {
        $0.buffer.removeAll(keepingCapacity: true)
        $0.head = 0
      } else if $0.head > 1_024 && $0.head * 2 > $0.buffer.count {
        $0.buffer.removeFirst($0.head)
        $0.head = 0
      }
      return changeSet
    }
  }

  /// The consumer is gone: unsubscribe.
  func terminate() {
    let callback = onTermination.withLock {
      let callback = $0
      $0 = nil
      return callback
    }
    callback?()
    finish()
  }
}
