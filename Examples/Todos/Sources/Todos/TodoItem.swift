import Arbor
import Foundation

/// One todo: a title, whether it is done, its tags, and an optional due date.
///
/// Each item tracks its own edits for undo (`title`, `isDone` and `tags`, as the SwiftModel
/// guide's `TodoItem` does for the first two); `isPastDue` is set by a timer and is not an
/// edit.
///
/// ```swift
/// let (list, _) = TodoListModel().andAnchor { $0.date = .constant(.now) }
/// let id = try list.addItem(title: "Milk")
/// list.item(id)?.toggle()
/// print(list.remaining)   // 0
/// ```
@Model public struct TodoItem {
  /// What an item tells its list.
  public enum Event: Sendable, Equatable, Codable {
    /// The item's remove button was tapped; the list removes it.
    case removeTapped
  }

  public var title: String
  public var isDone = false
  public var tags: [Tag] = []
  /// When the item is due, if ever.
  public var due: Date? = nil
  /// Whether `due` has passed: set by the item's timer, which sleeps on the
  /// `continuousClock` dependency until then.
  public var isPastDue = false

  /// An item titled `title`, due at `due` if given.
  ///
  /// ```swift
  /// let item = TodoItem(title: "Milk")
  /// ```
  public init(title: String, isDone: Bool = false, tags: [Tag] = [], due: Date? = nil) {
    self.title = title
    self.isDone = isDone
    self.tags = tags
    self.due = due
  }

  public func onActivate() {
    node.trackUndo(\.title, \.isDone, \.tags)
    // The timer's write is not an edit: it must not make the list dirty.
    node.excludeFromModifications(\.isPastDue)
    // A due date further away than a timer can count (a restored or hand-made item; the
    // list's intent refuses such dates) is not timed: it will not pass while this runs.
    if let due, !isPastDue, due.timeIntervalSince(node.date.now) < Self.longestTimer {
      let left = due.timeIntervalSince(node.date.now)
      node.task {
        if left > 0 { try await node.continuousClock.sleep(for: .seconds(left)) }
        isPastDue = true
      } catch: { _ in }
    }
    // Each overdue item contributes 1 to the list's overdueCount; the others contribute
    // nothing rather than 0.
    node.onChange(of: isOverdue, initial: true) { wasOverdue, isOverdue in
      if isOverdue {
        node.preference.overdueCount = 1
      } else if wasOverdue {
        node.removePreference(\.overdueCount)
      }
    }
  }

  /// The longest the item's timer waits for its due date, in seconds: a century and a bit.
  static let longestTimer: TimeInterval = 101 * 366 * 24 * 3600

  /// Whether the item is open and past its due date.
  ///
  /// ```swift
  /// let late = list.items.filter(\.isOverdue)
  /// ```
  public var isOverdue: Bool { !isDone && isPastDue }

  /// Where the item goes in its list's ``TodoListModel/sortedItems``, for the sort order
  /// the list hands down as a context value. Memoized: computed again only when the sort
  /// order, or what the key was made of, changes.
  ///
  /// ```swift
  /// let key = item.sortKey
  /// ```
  public var sortKey: SortKey {
    node.memoize(for: "sortKey") {
      switch node.context.todoSortOrder {
      case .created: SortKey(rank: 0, text: "")
      case .title: SortKey(rank: 0, text: title.lowercased())
      case .doneLast: SortKey(rank: isDone ? 1 : 0, text: "")
      }
    }
  }

  /// Gives the item a new title; an empty one is refused.
  ///
  /// Over the socket: `arborctl call /items/0 rename to='"Oat milk"'`.
  @Intent public func rename(to title: String) throws {
    let trimmed = title.trimmingCharacters(in: .whitespaces)
    guard !trimmed.isEmpty else { throw TodoError.emptyTitle }
    self.title = trimmed
  }

  /// Marks the item done, or open again.
  ///
  /// Over the socket: `arborctl call /items/0 toggle`.
  @Intent public func toggle() {
    isDone.toggle()
  }

  /// Asks the list to remove this item (an event: the item does not know its list).
  ///
  /// Over the socket: `arborctl call /items/0 removeTapped`.
  @Intent public func removeTapped() {
    node.send(.removeTapped)
  }

  /// Tags the item with `name`. When another item of the list already has a tag of that
  /// name, the item shares that tag model instead of making a new one. Tagging twice with
  /// one name changes nothing.
  ///
  /// Over the socket: `arborctl call /items/0 addTag name='"shop"'`.
  @Intent public func addTag(name: String) throws {
    let name = name.trimmingCharacters(in: .whitespaces)
    guard !name.isEmpty else { throw TodoError.emptyTitle }
    guard !tags.contains(where: { $0.name == name }) else { return }
    let list = node.mapHierarchy(for: .ancestors) { $0 as? TodoListModel }.first
    tags.append(list?.tag(named: name) ?? Tag(name: name))
  }

  /// Removes the tag `name` from this item (other items keep theirs).
  ///
  /// Over the socket: `arborctl call /items/0 removeTag name='"shop"'`.
  @Intent public func removeTag(name: String) throws {
    guard let index = tags.firstIndex(where: { $0.name == name }) else { throw TodoError.noSuchTag(name) }
    tags.remove(at: index)
  }

  /// Renames this item's tag `name` to `newName`. A tag only this item holds is renamed in
  /// place; a tag other items share is copied first, and the copy renamed, so that the
  /// other items keep the old name.
  ///
  /// Over the socket: `arborctl call /items/0 renameTag named='"shop"' to='"errands"'`.
  @Intent public func renameTag(named name: String, to newName: String) throws {
    let newName = newName.trimmingCharacters(in: .whitespaces)
    guard !newName.isEmpty else { throw TodoError.emptyTitle }
    guard newName != name else { return }
    try node.transaction {
      guard let index = tags.firstIndex(where: { $0.name == name }) else { throw TodoError.noSuchTag(name) }
      let tag = tags[index]
      if tag.isShared {
        tags[index] = Tag(name: newName)
      } else {
        tag.name = newName
      }
    }
  }
}
