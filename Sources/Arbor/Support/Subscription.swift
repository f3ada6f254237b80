
/// The buffer between a producer (commits, event sends) and one consumer.
///
/// The producer appends, possibly under the tree lock: appending never runs consumer code.
/// The consumer takes elements in order. Unbounded: a consumer that stops reading keeps
/// what it has not read.
final class Subscription<Element: Sendable>: Sendable {
  private struct State: Sendable {
    var buffer: [Element] = []
    var head = 0
    var waiter: CheckedContinuation<Element?, Never>?
    var finished = false
  }

  private let state = LockedState(State())
  /// Called once when the consumer goes away, to unsubscribe from the tree.
  private let onTermination: LockedState<(@Sendable () -> Void)?>

  init(onTermination: @escaping @Sendable () -> Void) {
    self.onTermination = LockedState(onTermination)
  }

  /// Delivers a change set. Called with the tree lock held.
  func yield(_ element: Element) {
    let waiter: CheckedContinuation<Element?, Never>? = state.withLock {
      guard !$0.finished else { return nil }
      if let waiter = $0.waiter {
        $0.waiter = nil
        return waiter
      }
      $0.buffer.append(element)
      return nil
    }
    waiter?.resume(returning: element)
  }

  /// Ends the subscription: the consumer gets what is buffered, then nil.
  func finish() {
    let waiter: CheckedContinuation<Element?, Never>? = state.withLock {
      $0.finished = true
      let waiter = $0.waiter
      $0.waiter = nil
      return waiter
    }
    waiter?.resume(returning: nil)
  }

  /// The next change set, or nil once finished or when the consuming task is cancelled.
  func next() async -> Element? {
    if let ready = takeBuffered() { return ready }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
        let immediate: Element?? = state.withLock {
          if $0.head < $0.buffer.count {
            let element = $0.buffer[$0.head]
            $0.head += 1
            return .some(element)
          }
          if $0.finished || Task.isCancelled { return .some(nil) }
          $0.waiter = continuation
          return .none
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      let waiter: CheckedContinuation<Element?, Never>? = state.withLock {
        let waiter = $0.waiter
        $0.waiter = nil
        return waiter
      }
      waiter?.resume(returning: nil)
    }
  }

  private func takeBuffered() -> Element? {
    state.withLock {
      guard $0.head < $0.buffer.count else { return nil }
      let element = $0.buffer[$0.head]
      $0.head += 1
      if $0.head == $0.buffer.count {
        $0.buffer.removeAll(keepingCapacity: true)
        $0.head = 0
      } else if $0.head > 1_024 && $0.head * 2 > $0.buffer.count {
        $0.buffer.removeFirst($0.head)
        $0.head = 0
      }
      return element
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
