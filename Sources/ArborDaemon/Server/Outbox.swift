import ArborLocking
import NIOCore
import Synchronization

/// What one connection has to send, in order: replies, notifications, and placeholders
/// for resyncs that are built when they are sent.
///
/// Bounded: each watch may have at most `watchLimit` notifications waiting; the caller is
/// told when one would pass it, and coalesces (a state watch) or closes (an event watch).
/// When the bytes waiting pass `byteLimit`, the outbox closes and the connection with it.
///
/// Whoever queues something wakes the connection's writer once (`wake`), and the writer
/// takes everything waiting at once when its socket can take more, so one slow reader holds
/// up nobody but itself, and replies that pile up while the writer is busy go out in one
/// write.
final class Outbox: Sendable {
  enum Item: Sendable {
    case bytes([UInt8], subscription: Int?)
    /// A reply already in the form the socket takes, written as it is: a large reply
    /// built off the event loop (a batch's array), which the writer then need not copy.
    case buffer(ByteBuffer)
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

  /// What the writer found when it came to take.
  enum Taken: Sendable {
    /// Items to write, oldest first.
    case items([Item])
    /// Nothing waits; the writer is woken when something comes.
    case nothing
    /// Finished and drained: the writer closes the connection once its writes are out.
    case finished
    /// Closed (the connection went, or the client left too much unread): nothing more
    /// is written.
    case closed
  }

  private struct State {
    var items: [Item] = []
    var waitingBySubscription: [Int: Int] = [:]
    var bytes = 0
    var closed = false
    /// No more items come; the writer gets what is waiting, then `.finished`.
    var finishing = false
    /// The writer was woken and has not come to take since.
    var wakePending = false
    var wake: (@Sendable () -> Void)?
  }

  let watchLimit: Int
  let byteLimit: Int
  private let state: LockedState<State>

  /// `wake` is called, outside the outbox's lock, when there is something for a writer
  /// that is not already on its way.
  init(watchLimit: Int, byteLimit: Int, wake: @escaping @Sendable () -> Void) {
    self.watchLimit = watchLimit
    self.byteLimit = byteLimit
    self.state = LockedState(State(wake: wake))
  }

  /// Queues a reply (never refused while open).
  func send(_ bytes: [UInt8]) {
    _ = try? enqueue(.bytes(bytes, subscription: nil), bounded: false)
  }

  /// Queues a reply held in a buffer (never refused while open); it is written without a
  /// copy.
  func send(_ buffer: ByteBuffer) {
    _ = try? enqueue(.buffer(buffer), bounded: false)
  }

  /// Queues a notification of a watch; refused with `.watchFull` when the watch has its
  /// limit waiting.
  func notify(_ bytes: [UInt8], subscription: Int) throws(Refusal) {
    try enqueue(.bytes(bytes, subscription: subscription), bounded: true)
  }

  /// Drops what a watch has waiting and queues its resync in its place.
  func replaceWithResync(subscription: Int) {
    let wake: (@Sendable () -> Void)? = state.withLock { state in
      guard !state.closed else { return nil }
      state.items.removeAll { item in
        guard case .bytes(let bytes, subscription?) = item, subscription == subscription else { return false }
        state.bytes -= bytes.count
        return true
      }
      state.items.append(.resync(subscription: subscription))
      state.waitingBySubscription[subscription] = 1
      return Self.takeWake(&state)
    }
    wake?()
  }

  private func enqueue(_ item: Item, bounded: Bool) throws(Refusal) {
    let result: Result<(@Sendable () -> Void)?, Refusal> = state.withLock { state in
      guard !state.closed else { return .failure(.closed) }
      let count: Int
      switch item {
      case .bytes(let bytes, let subscription):
        // Counted in place: one look-up of the subscription, not one to read and one to write.
        if let subscription, !Self.count(&state.waitingBySubscription[subscription, default: 0], below: bounded ? watchLimit : .max) {
          return .failure(.watchFull)
        }
        count = bytes.count
      case .buffer(let buffer):
        count = buffer.readableBytes
      case .resync:
        count = 0
      }
      state.bytes += count
      if state.bytes > byteLimit {
        state.closed = true
        state.items = []
        // Woken even if a wake-up is pending: a writer that waits for the socket to take
        // more (which a client that reads nothing never lets it) must still close it.
        state.wakePending = true
        return .success(state.wake)
      }
      state.items.append(item)
      return .success(Self.takeWake(&state))
    }
    switch result {
    case .failure(let refusal): throw refusal
    case .success(let wake): wake?()
    }
  }

  /// Adds one to `waiting` unless it has reached `limit`; false when it has.
  private static func count(_ waiting: inout Int, below limit: Int) -> Bool {
    guard waiting < limit else { return false }
    waiting += 1
    return true
  }

  /// The wake-up to call, unless the writer was already woken.
  private static func takeWake(_ state: inout State) -> (@Sendable () -> Void)? {
    guard !state.wakePending else { return nil }
    state.wakePending = true
    return state.wake
  }

  /// Everything waiting. One writer only; after `.nothing` it is woken when something
  /// comes, after `.finished` or `.closed` never again.
  func take() -> Taken {
    state.withLock { state in
      state.wakePending = false
      if state.closed {
        state.wake = nil
        return .closed
      }
      if state.items.isEmpty {
        if state.finishing {
          state.wake = nil
          return .finished
        }
        return .nothing
      }
      let items = state.items
      state.items = []
      state.bytes = 0
      // Kept, emptied: a watch's next notification would otherwise allocate it again.
      if !state.waitingBySubscription.isEmpty { state.waitingBySubscription.removeAll(keepingCapacity: true) }
      return .items(items)
    }
  }

  /// Closed: by ``close()``, or because more than its limit waited unwritten.
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Nothing waits to be taken by the writer.
  var isEmpty: Bool { state.withLock { $0.items.isEmpty } }

  /// Lets the writer send what is waiting, then end.
  func finish() {
    let wake = state.withLock { state -> (@Sendable () -> Void)? in
      guard !state.finishing else { return nil }
      state.finishing = true
      return Self.takeWake(&state)
    }
    wake?()
  }

  /// Closes the outbox: queued items are dropped, nothing more is taken, and the writer is
  /// let go of (the connection is gone).
  func close() {
    state.withLock { state in
      state.closed = true
      state.items = []
      state.wake = nil
    }
  }
}
