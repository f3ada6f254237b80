/// Synchronous listeners of the events sent in a tree, called on the sending thread after
/// the tree's lock is released, in the order the events were sent from that thread.
/// Testers use them so that an event is known the moment `node.send` returns.
final class EventTaps: Sendable {
  private struct State {
    var next = 0
    var taps: [Int: @Sendable (EmittedEvent) -> Void] = [:]
  }

  private let state = LockedState(State())

  var isEmpty: Bool { state.withLock { $0.taps.isEmpty } }

  func add(_ body: @escaping @Sendable (EmittedEvent) -> Void) -> Int {
    state.withLock { state in
      defer { state.next += 1 }
      state.taps[state.next] = body
      return state.next
    }
  }

  func remove(_ id: Int) {
    _ = state.withLock { $0.taps.removeValue(forKey: id) }
  }

  func publish(_ event: EmittedEvent) {
    let taps = state.withLock { Array($0.taps.values) }
    for tap in taps { tap(event) }
  }
}

/// Keeps an event tap in place; releasing it removes the tap.
package final class EventTap: Sendable {
  private let taps: EventTaps
  private let id: Int

  init(taps: EventTaps, id: Int) {
    self.taps = taps
    self.id = id
  }

  deinit { taps.remove(id) }
}

extension ModelAnchor {
  /// Calls `body` with every event sent in the tree from now on, synchronously, for as
  /// long as the returned tap is kept.
  package func tapEvents(_ body: @escaping @Sendable (EmittedEvent) -> Void) -> EventTap {
    EventTap(taps: tree.eventTaps, id: tree.eventTaps.add(body))
  }

  /// The tasks of the tree's models that are running now.
  package var runningTasks: [TaskRegistry.Entry] { tree.tasks.running }
}
