/// Keeps a synchronous listener of a tree in place — an event tap
/// (``ModelAnchor/tapEvents(_:)``) or a modification tap
/// (``ModelAnchor/tapModifications(_:)``) — for as long as it is kept; releasing it removes
/// the listener. `Listened` names what it listens to, so that the two kinds stay apart.
///
/// ```swift
/// let tap: TreeTap<EmittedEvent> = anchor.tapEvents { event in print(event.type) }
/// ```
package final class TreeTap<Listened>: Sendable {
  private let remove: @Sendable () -> Void

  init(removing remove: @escaping @Sendable () -> Void) { self.remove = remove }

  deinit { remove() }
}

/// A tap of the events sent in a tree.
package typealias EventTap = TreeTap<EmittedEvent>
/// A tap of what each committed transaction modified.
package typealias ModificationTap = TreeTap<ModificationBatch>
