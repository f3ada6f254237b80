import ArborLocking
import Synchronization

/// What a change set listener is called with (see ``ModelAnchor/listen(limit:_:)``).
public enum ChangeSetDelivery: Sendable {
  /// The next committed change set, in revision order.
  case committed(ChangeSet)
  /// More than the listener's limit of change sets waited to be delivered and were dropped:
  /// whatever the listener keeps must be read again from the tree. Nothing follows.
  case overflowed
}

/// A listener of a tree's change sets; the calls stop when it is cancelled or released.
///
/// ```swift
/// let listener = anchor.listen { delivery in
///   if case .committed(let changeSet) = delivery { print(changeSet.revision) }
/// }
/// // … later:
/// listener.cancel()
/// ```
public final class ChangeSetListener: Sendable {
  private let relay: ChangeSetRelay
  private let id: Int
  private let removed = Atomic<Bool>(false)
  private let onRemove: @Sendable () -> Void

  init(relay: ChangeSetRelay, id: Int, onRemove: @escaping @Sendable () -> Void) {
    self.relay = relay
    self.id = id
    self.onRemove = onRemove
  }

  /// Stops the calls: none starts after this returns (one that is running finishes).
  public func cancel() {
    guard !removed.exchange(true, ordering: .sequentiallyConsistent) else { return }
    relay.remove(id)
    onRemove()
  }

  deinit { cancel() }
}

/// Hands a tree's committed change sets to synchronous listeners: in revision order, one
/// call at a time, on a thread that committed, after the tree's lock is released. No task
/// and no thread hop stands between a commit and its listeners.
///
/// Change sets are queued under the tree's lock (so the queue is in revision order); after
/// the lock is released, the committing thread becomes the one that delivers unless another
/// thread already is, in which case that thread delivers this change set too before it
/// stops. So a listener is never called twice at once, and a writer never waits for another
/// writer's listeners.
final class ChangeSetRelay: Sendable {
  typealias Body = @Sendable (ChangeSetDelivery) -> Void

  private final class Listener: Sendable {
    let body: Body
    /// Change sets up to this revision were committed before the listener was added.
    let after: UInt64
    let limit: Int
    /// Cleared when the listener is removed: a delivery already under way skips it.
    let active = Atomic<Bool>(true)

    init(body: @escaping Body, after: UInt64, limit: Int) {
      self.body = body
      self.after = after
      self.limit = limit
    }
  }

  private struct State {
    var queue: [ChangeSet] = []
    var delivering = false
    var listeners: [Int: Listener] = [:] {
      didSet {
        // Kept beside the table, so that a commit neither walks it nor copies it out.
        ordered = listeners.sorted { $0.key < $1.key }.map(\.value)
        smallestLimit = ordered.lazy.map(\.limit).min() ?? .max
      }
    }
    /// The listeners in the order they were added.
    var ordered: [Listener] = []
    /// The smallest of their limits.
    var smallestLimit = Int.max
    var nextID = 0
  }

  private let state = LockedState(State())

  var isEmpty: Bool { state.withLock { $0.listeners.isEmpty } }

  /// Adds a listener of the change sets after `revision`. Call with the tree's lock held,
  /// so that no change set is committed between reading `revision` and adding it.
  func add(after revision: UInt64, limit: Int, _ body: @escaping Body) -> Int {
    state.withLock { state in
      let id = state.nextID
      state.nextID += 1
      state.listeners[id] = Listener(body: body, after: revision, limit: max(1, limit))
      return id
    }
  }

  func remove(_ id: Int) {
    state.withLock { $0.listeners.removeValue(forKey: id) }?.active.store(false, ordering: .sequentiallyConsistent)
  }

  /// Queues a committed change set. Called with the tree's lock held, in revision order.
  func enqueue(_ changeSet: ChangeSet) {
    let overflowed: [Listener] = state.withLock { state in
      state.queue.append(changeSet)
      // A listener that cannot keep up (its calls take longer than the commits they
      // follow) is told once and dropped, instead of the queue growing without bound.
      guard state.queue.count > state.smallestLimit else { return [] }
      let dropped = state.listeners.filter { $0.value.limit < state.queue.count }
      for (id, listener) in dropped {
        state.listeners.removeValue(forKey: id)
        listener.active.store(false, ordering: .sequentiallyConsistent)
      }
      if state.listeners.isEmpty { state.queue = [] }
      return Array(dropped.values)
    }
    // Told here, under the tree's lock: the call must be short (the listener's own code,
    // never user code).
    for listener in overflowed { listener.body(.overflowed) }
  }

  /// Delivers what is queued, unless another thread is delivering. Called with no lock
  /// held, after a commit.
  func deliver() {
    var batch: [ChangeSet] = []
    var next = take(into: &batch, starting: true)
    while let listeners = next {
      for changeSet in batch {
        for listener in listeners where changeSet.revision > listener.after && listener.active.load(ordering: .sequentiallyConsistent) {
          listener.body(.committed(changeSet))
        }
      }
      // Emptied here, with no lock held; its room becomes the queue's again.
      batch.removeAll(keepingCapacity: batch.capacity <= 256)
      next = take(into: &batch, starting: false)
    }
  }

  /// Swaps what is queued into `batch` (empty) and returns the listeners to call, or nil
  /// when there is nothing (or, `starting`, another thread delivers). The queue gets the
  /// room of the batch delivered before, so that the next commit's change set allocates no
  /// array.
  private func take(into batch: inout [ChangeSet], starting: Bool) -> [Listener]? {
    state.withLock { state in
      if starting && state.delivering { return nil }
      guard !state.queue.isEmpty else {
        state.delivering = false
        if batch.capacity > state.queue.capacity { swap(&state.queue, &batch) }
        return nil
      }
      state.delivering = true
      swap(&state.queue, &batch)
      return state.ordered
    }
  }
}
