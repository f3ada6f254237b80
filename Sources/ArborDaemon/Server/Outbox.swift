import Synchronization

/// What one connection has to send, in order: replies, notifications, and placeholders
/// for resyncs that are built when they are sent.
///
/// Bounded: each watch may have at most `watchLimit` notifications waiting; the caller is
/// told when one would pass it, and coalesces (a state watch) or closes (an event watch).
/// When the bytes waiting pass `byteLimit`, the outbox closes and the connection with it.
/// The connection's writer task takes everything waiting at once, so one slow reader holds
/// up nobody but itself.
final class Outbox: Sendable {
  enum Item: Sendable {
    case bytes([UInt8], subscription: Int?)
    /// A state watch's resync: its current value is read when it is written.
    case resync(subscription: Int)
  }

  /// Why the outbox refused an item.
  enum Refusal: Error, Equatable {
    /// The watch already has its limit of notifications waiting.
    case watchFull
    /// The connection is closed (or was just closed for holding too much).
    case closed
  }

  private struct State {
    var items: [Item] = []
    var waitingBySubscription: [Int: Int] = [:]
    var bytes = 0
    var closed = false
    /// No more items come; the writer gets what is waiting, then nil.
    var finishing = false
    var waiter: CheckedContinuation<Void, Never>?
  }

  let watchLimit: Int
  let byteLimit: Int
  private let state = Mutex(State())

  init(watchLimit: Int, byteLimit: Int) {
    self.watchLimit = watchLimit
    self.byteLimit = byteLimit
  }

  /// Queues a reply (never refused while open).
  func send(_ bytes: [UInt8]) {
    _ = try? enqueue(.bytes(bytes, subscription: nil), bounded: false)
  }

  /// Queues a notification of a watch; refused with `.watchFull` when the watch has its
  /// limit waiting.
  func notify(_ bytes: [UInt8], subscription: Int) throws(Refusal) {
    try enqueue(.bytes(bytes, subscription: subscription), bounded: true)
  }

  /// Drops what a watch has waiting and queues its resync in its place.
  func replaceWithResync(subscription: Int) {
    let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
      guard !state.closed else { return nil }
      state.items.removeAll { item in
        guard case .bytes(let bytes, subscription?) = item, subscription == subscription else { return false }
        state.bytes -= bytes.count
        return true
      }
      state.items.append(.resync(subscription: subscription))
      state.waitingBySubscription[subscription] = 1
      return Self.takeWaiter(&state)
    }
    waiter?.resume()
  }

  private func enqueue(_ item: Item, bounded: Bool) throws(Refusal) {
    let result: Result<CheckedContinuation<Void, Never>?, Refusal> = state.withLock { state in
      guard !state.closed else { return .failure(.closed) }
      if case .bytes(let bytes, let subscription) = item {
        if let subscription {
          let waiting = state.waitingBySubscription[subscription, default: 0]
          if bounded && waiting >= watchLimit { return .failure(.watchFull) }
          state.waitingBySubscription[subscription] = waiting + 1
        }
        state.bytes += bytes.count
        if state.bytes > byteLimit {
          state.closed = true
          state.items = []
          return .success(Self.takeWaiter(&state))
        }
      }
      state.items.append(item)
      return .success(Self.takeWaiter(&state))
    }
    switch result {
    case .failure(let refusal): throw refusal
    case .success(let waiter): waiter?.resume()
    }
  }

  private static func takeWaiter(_ state: inout State) -> CheckedContinuation<Void, Never>? {
    defer { state.waiter = nil }
    return state.waiter
  }

  private static func takeAll(_ state: inout State) -> [Item]? {
    if state.items.isEmpty { return state.closed || state.finishing ? nil : [] }
    let items = state.items
    state.items = []
    state.bytes = 0
    state.waitingBySubscription = [:]
    return items
  }

  /// Everything waiting, once there is something; nil when the outbox is closed and
  /// empty. One writer task only.
  func next() async -> [Item]? {
    while true {
      let ready: [Item]?? = state.withLock { state in
        if !state.items.isEmpty || state.closed || state.finishing { return .some(Self.takeAll(&state)) }
        return .none
      }
      if let ready { return ready }
      await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        let resumeNow: Bool = state.withLock { state in
          if !state.items.isEmpty || state.closed || state.finishing { return true }
          state.waiter = continuation
          return false
        }
        if resumeNow { continuation.resume() }
      }
    }
  }

  /// Whether the outbox was closed (by the connection, or for holding too much).
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Whether the outbox was finished (drained and ended) rather than closed.
  var wasFinished: Bool { state.withLock { $0.finishing } }

  /// Lets the writer send what is waiting, then end.
  func finish() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.finishing = true
      return Self.takeWaiter(&state)
    }
    waiter?.resume()
  }

  /// Closes the outbox: queued items are dropped and the writer gets nil.
  func close() {
    let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
      state.closed = true
      state.items = []
      return Self.takeWaiter(&state)
    }
    waiter?.resume()
  }
}
