import ArborLocking
/// The bounded buffer between a producer (commits, event sends) and one consumer.
///
/// The producer appends, possibly under the tree lock: appending never runs consumer code.
/// The consumer takes elements in order, from one task at a time. When the consumer falls
/// `limit` elements behind, the buffer is dropped, the subscription ends, and the consumer's
/// next call throws ``SubscriptionError/overflow(limit:)``: memory stays bounded whatever
/// the consumer does.
final class Subscription<Element: Sendable>: Sendable {
  private struct State: Sendable {
    var buffer: [Element] = []
    var head = 0
    var waiter: CheckedContinuation<Result<Element?, SubscriptionError>, Never>?
    var finished = false
    var overflowed = false
    /// Whether the overflow was already reported to the consumer (it is reported once).
    var overflowReported = false
    var buffered: Int { buffer.count - head }
  }

  private let state = LockedState(State())
  /// Called once when the consumer goes away, to unsubscribe from the tree.
  private let onTermination: LockedState<(@Sendable () -> Void)?>
  /// How many elements may wait unread.
  let limit: Int

  init(limit: Int, onTermination: @escaping @Sendable () -> Void) {
    precondition(limit > 0, "A subscription's limit must be at least 1.")
    self.limit = limit
    self.onTermination = LockedState(onTermination)
  }

  /// Delivers an element. May be called with the tree lock held: it never runs consumer
  /// code. Returns false when the subscription has ended (finished or overflowed), so the
  /// producer can drop it.
  @discardableResult
  func yield(_ element: Element) -> Bool {
    let (waiter, live): (CheckedContinuation<Result<Element?, SubscriptionError>, Never>?, Bool) = state.withLock {
      guard !$0.finished else { return (nil, false) }
      if let waiter = $0.waiter {
        $0.waiter = nil
        return (waiter, true)
      }
      guard $0.buffered < limit else {
        $0.buffer = []
        $0.head = 0
        $0.finished = true
        $0.overflowed = true
        return (nil, false)
      }
      $0.buffer.append(element)
      return (nil, true)
    }
    waiter?.resume(returning: .success(element))
    return live
  }

  /// Whether the consumer fell behind and the subscription ended.
  var didOverflow: Bool { state.withLock { $0.overflowed } }

  /// Ends the subscription: the consumer gets what is buffered, then nil.
  func finish() {
    let waiter = state.withLock {
      $0.finished = true
      let waiter = $0.waiter
      $0.waiter = nil
      return waiter
    }
    waiter?.resume(returning: .success(nil))
  }

  /// The next element; nil once finished or when the consuming task is cancelled.
  ///
  /// Throws ``SubscriptionError/overflow(limit:)`` once after an overflow, and
  /// ``SubscriptionError/concurrentConsumers`` when another task is already waiting.
  func next() async throws(SubscriptionError) -> Element? {
    if let ready = try takeReady() { return ready }
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { (continuation: CheckedContinuation<Result<Element?, SubscriptionError>, Never>) in
        let immediate: Result<Element?, SubscriptionError>? = state.withLock {
          if let ready = Self.take(&$0, limit: limit) { return ready }
          if Task.isCancelled { return .success(nil) }
          if $0.waiter != nil { return .failure(.concurrentConsumers) }
          $0.waiter = continuation
          return nil
        }
        if let immediate { continuation.resume(returning: immediate) }
      }
    } onCancel: {
      let waiter = state.withLock {
        let waiter = $0.waiter
        $0.waiter = nil
        return waiter
      }
      waiter?.resume(returning: .success(nil))
    }
    return try result.get()
  }

  private func takeReady() throws(SubscriptionError) -> Element? {
    try state.withLock { Self.take(&$0, limit: limit) }?.get()
  }

  /// What the consumer can have without waiting: a buffered element, the end, or the
  /// overflow error; nil when it must wait.
  private static func take(_ state: inout State, limit: Int) -> Result<Element?, SubscriptionError>? {
    if state.head < state.buffer.count {
      let element = state.buffer[state.head]
      state.head += 1
      if state.head == state.buffer.count {
        state.buffer.removeAll(keepingCapacity: state.buffer.count <= 1_024)
        state.head = 0
      } else if state.head > 1_024 && state.head * 2 > state.buffer.count {
        state.buffer.removeFirst(state.head)
        state.head = 0
      }
      return .success(element)
    }
    if state.overflowed && !state.overflowReported {
      state.overflowReported = true
      return .failure(.overflow(limit: limit))
    }
    if state.finished { return .success(nil) }
    return nil
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
