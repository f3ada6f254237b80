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
    /// The array of an earlier take, written and given back empty (``recycle(_:)``): the
    /// next take leaves it in `items`, so that what is queued next allocates no array.
    var spare: [Item] = []
    var waitingBySubscription: [Int: Int] = [:]
    var bytes = 0
    var closed = false
    /// No more items come; the writer gets what is waiting, then `.finished`.
    var finishing = false
    /// The writer was woken and has not come to take since.
    var wakePending = false
    /// A writer is still to be woken: false once it was told the outbox is closed or
    /// finished, or the outbox was closed.
    var hasWriter = true
  }

  let watchLimit: Int
  let byteLimit: Int
  private let state: LockedState<State>
  /// Kept out of the lock's state: a closure returned through the lock's generic result
  /// was wrapped in a new thunk, an allocation, at every wake-up.
  private let wake: @Sendable () -> Void

  /// `wake` is called, outside the outbox's lock, when there is something for a writer
  /// that is not already on its way.
  init(watchLimit: Int, byteLimit: Int, wake: @escaping @Sendable () -> Void) {
    self.watchLimit = watchLimit
    self.byteLimit = byteLimit
    self.state = LockedState(State())
    self.wake = wake
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
    let wakes = state.withLock { state -> Bool in
      guard !state.closed else { return false }
      state.items.removeAll { item in
        guard case .bytes(let bytes, subscription?) = item, subscription == subscription else { return false }
        state.bytes -= bytes.count
        return true
      }
      state.items.append(.resync(subscription: subscription))
      state.waitingBySubscription[subscription] = 1
      return Self.takeWake(&state)
    }
    if wakes { wake() }
  }

  private func enqueue(_ item: Item, bounded: Bool) throws(Refusal) {
    let result: Result<Bool, Refusal> = state.withLock { state in
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
        return .success(state.hasWriter)
      }
      state.items.append(item)
      return .success(Self.takeWake(&state))
    }
    switch result {
    case .failure(let refusal): throw refusal
    case .success(let wakes): if wakes { wake() }
    }
  }

  /// Adds one to `waiting` unless it has reached `limit`; false when it has.
  private static func count(_ waiting: inout Int, below limit: Int) -> Bool {
    guard waiting < limit else { return false }
    waiting += 1
    return true
  }

  /// Whether to wake the writer: not when it was already woken, or is gone.
  private static func takeWake(_ state: inout State) -> Bool {
    guard !state.wakePending else { return false }
    state.wakePending = true
    return state.hasWriter
  }

  /// Everything waiting. One writer only; after `.nothing` it is woken when something
  /// comes, after `.finished` or `.closed` never again.
  func take() -> Taken {
    state.withLock { state in
      state.wakePending = false
      if state.closed {
        state.hasWriter = false
        return .closed
      }
      if state.items.isEmpty {
        if state.finishing {
          state.hasWriter = false
          return .finished
        }
        return .nothing
      }
      let items = state.items
      state.items = state.spare
      state.spare = []
      state.bytes = 0
      // Kept, emptied: a watch's next notification would otherwise allocate it again.
      if !state.waitingBySubscription.isEmpty { state.waitingBySubscription.removeAll(keepingCapacity: true) }
      return .items(items)
    }
  }

  /// Takes back the array of a `.items` take once its items are written: emptied, it
  /// keeps its room (up to 256 items) for the items queued after the next take.
  ///
  /// ```swift
  /// if case .items(var items) = outbox.take() { write(items); outbox.recycle(&items) }
  /// ```
  func recycle(_ items: inout [Item]) {
    // The room of a large take (a batch's thousands of replies) is not kept.
    guard items.capacity <= 256 else { return }
    items.removeAll(keepingCapacity: true)
    state.withLock { state in
      // Into the queue itself while nothing came since the take; else kept for the next.
      if state.items.isEmpty && state.items.capacity < items.capacity {
        swap(&state.items, &items)
      } else if state.spare.capacity < items.capacity {
        swap(&state.spare, &items)
      }
    }
  }

  /// Closed: by ``close()``, or because more than its limit waited unwritten.
  var isClosed: Bool { state.withLock { $0.closed } }

  /// Nothing waits to be taken by the writer.
  var isEmpty: Bool { state.withLock { $0.items.isEmpty } }

  /// Lets the writer send what is waiting, then end.
  func finish() {
    let wakes = state.withLock { state -> Bool in
      guard !state.finishing else { return false }
      state.finishing = true
      return Self.takeWake(&state)
    }
    if wakes { wake() }
  }

  /// Closes the outbox: queued items are dropped, nothing more is taken, and the writer is
  /// let go of (the connection is gone).
  func close() {
    state.withLock { state in
      state.closed = true
      state.items = []
      state.hasWriter = false
    }
  }
}
