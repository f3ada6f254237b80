extension ModelAnchor {
  /// Calls `body` with every event sent in the tree from now on, synchronously, on the
  /// sending thread after the tree's lock is released, for as long as the returned tap is
  /// kept. Testers use it so that an event is known the moment `node.send` returns.
  package func tapEvents(_ body: @escaping @Sendable (EmittedEvent) -> Void) -> EventTap {
    let tree = self.tree
    let id = tree.fanOut.addEventTap(body)
    return EventTap { [weak fanOut = tree.fanOut] in fanOut?.removeEventTap(id) }
  }

  /// The tasks of the tree's models that are running now.
  package var runningTasks: [TaskRegistry.Entry] { tree.tasks.running }

  /// The running tasks a test must see end (see ``TaskRegistry/required``).
  package var requiredTasks: [Int: TaskRegistry.Entry] { tree.tasks.required }
}
