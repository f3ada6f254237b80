/// Keeps a synchronous event listener of a tree in place (see
/// ``ModelAnchor/tapEvents(_:)``); releasing it removes the listener.
package final class EventTap: Sendable {
  private weak let tree: ModelTree?
  private let id: Int

  init(tree: ModelTree, id: Int) {
    self.tree = tree
    self.id = id
  }

  deinit { tree?.removeEventTap(id) }
}

extension ModelAnchor {
  /// Calls `body` with every event sent in the tree from now on, synchronously, on the
  /// sending thread after the tree's lock is released, for as long as the returned tap is
  /// kept. Testers use it so that an event is known the moment `node.send` returns.
  package func tapEvents(_ body: @escaping @Sendable (EmittedEvent) -> Void) -> EventTap {
    EventTap(tree: tree, id: tree.addEventTap(body))
  }

  /// The tasks of the tree's models that are running now.
  package var runningTasks: [TaskRegistry.Entry] { tree.tasks.running }

  /// The running tasks a test must see end (see ``TaskRegistry/required``).
  package var requiredTasks: [Int: TaskRegistry.Entry] { tree.tasks.required }
}
