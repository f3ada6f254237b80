import Arbor
import Foundation

/// The root of todosd's tree: the items, the title being typed for the next one, the sort
/// order, and whether there are edits not yet saved.
///
/// Adding, removing and clearing items can be undone (`node.trackUndo(\.items)`), and each
/// item tracks its own edits; the title being typed, the sort order and the dirty flag are
/// not edits and stay out of the history.
///
/// ```swift
/// let stack = ModelUndoStack()
/// let (list, anchor) = TodoListModel().andAnchor { $0.undoSystem.backend = stack }
/// list.setNewItemTitle(to: "Milk")
/// try list.addItem()
/// stack.undo()
/// print(list.items.count, list.newItemTitle)   // 0 ""
/// ```
@Model public struct TodoListModel {
  public var items: [TodoItem] = []
  /// The title being typed for the next item: ephemeral, never undone.
  public var newItemTitle = ""
  /// How ``sortedItems`` orders the items; handed down to the items as a context value.
  public var sortOrder: SortOrder = .created
  /// Whether the list was edited since ``markSaved()``: set ``dirtyDelay`` after the last
  /// of a burst of edits (debounced on the `continuousClock` dependency).
  public var isDirty = false

  /// How long the list waits after an edit, with no further edit, before it is dirty.
  public static let dirtyDelay: Duration = .seconds(1)

  /// A list of `items`.
  ///
  /// ```swift
  /// let list = TodoListModel(items: [TodoItem(title: "Milk")])
  /// ```
  public init(items: [TodoItem] = [], newItemTitle: String = "", sortOrder: SortOrder = .created) {
    self.items = items
    self.newItemTitle = newItemTitle
    self.sortOrder = sortOrder
  }

  public func onActivate() {
    // Adding and removing items is undoable; each item tracks its own title, isDone and tags.
    node.trackUndo(\.items)
    // The sort order flows down to the items, which read it for their sort keys.
    node.context.todoSortOrder = sortOrder
    // Typing a title, sorting and saving are not edits.
    node.excludeFromModifications(\.newItemTitle, \.sortOrder, \.isDirty)
    // Dirty once the edits have paused for dirtyDelay: each edit cancels the wait of the one before.
    node.forEach(observeModifications(kinds: .properties), cancelPrevious: true) { _ in
      try await node.continuousClock.sleep(for: Self.dirtyDelay)
      isDirty = true
    }
    node.forEach(node.event(fromType: TodoItem.self)) { event, item in
      switch event {
      case .removeTapped:
        items.removeAll { $0.id == item.id }
      }
    }
  }

  // MARK: Derived values

  /// How many items are not done yet. Memoized: computed again only after an item's
  /// `isDone` changed or the items did.
  ///
  /// ```swift
  /// let remaining = Observed { list.remaining }
  /// ```
  public var remaining: Int {
    node.memoize(for: "remaining") { items.reduce(0) { $1.isDone ? $0 : $0 + 1 } }
  }

  /// The items not done yet, in list order (memoized).
  ///
  /// ```swift
  /// print(list.activeItems.map(\.title))
  /// ```
  public var activeItems: [TodoItem] {
    node.memoize(for: "active") { items.filter { !$0.isDone } }
  }

  /// The items done, in list order (memoized).
  ///
  /// ```swift
  /// print(list.completedItems.count)
  /// ```
  public var completedItems: [TodoItem] {
    node.memoize(for: "completed") { items.filter(\.isDone) }
  }

  /// The items in ``sortOrder``, by each item's ``TodoItem/sortKey`` (memoized).
  ///
  /// ```swift
  /// try list.setSortOrder(to: .title)
  /// print(list.sortedItems.map(\.title))
  /// ```
  public var sortedItems: [TodoItem] {
    node.memoize(for: "sorted") {
      items.enumerated()
        .map { (key: $0.element.sortKey, offset: $0.offset, item: $0.element) }
        .sorted { ($0.key, $0.offset) < ($1.key, $1.offset) }
        .map(\.item)
    }
  }

  /// The items that have a tag called `name` (memoized for each name).
  ///
  /// ```swift
  /// let shopping = list.items(taggedWith: "shop")
  /// ```
  public func items(taggedWith name: String) -> [TodoItem] {
    node.memoize(for: "tagged:" + name) { items.filter { $0.tags.contains { $0.name == name } } }
  }

  /// How many items are overdue: the sum of the items' `overdueCount` preference.
  ///
  /// ```swift
  /// print(list.overdueCount)
  /// ```
  public var overdueCount: Int { node.preference.overdueCount }

  /// The item with this id, if the list has it.
  ///
  /// ```swift
  /// list.item(id)?.toggle()
  /// ```
  public func item(_ id: TodoItem.ID) -> TodoItem? {
    items.first { $0.id == id }
  }

  /// The first tag called `name` on any item, for an item tagged with the same name to share.
  ///
  /// ```swift
  /// let shop = list.tag(named: "shop")
  /// ```
  public func tag(named name: String) -> Tag? {
    for item in items {
      if let tag = item.tags.first(where: { $0.name == name }) { return tag }
    }
    return nil
  }

  // MARK: Intents

  /// Sets the title being typed for the next item. Not an edit: it is not undone and does
  /// not make the list dirty.
  ///
  /// Over the socket: `arborctl call / setNewItemTitle to='"Milk"'`.
  @Intent public func setNewItemTitle(to title: String) {
    newItemTitle = title
  }

  /// How far from now `addItem`'s `dueInMinutes` may be, either way: a hundred years.
  public static let acceptedDueInMinutes: ClosedRange<Int> = -52_560_000...52_560_000

  /// Adds an item titled `title`, or ``newItemTitle`` when `title` is nil (which then
  /// clears), due `dueInMinutes` from now if given; returns the new item's id. An empty
  /// title is refused, and so is a `dueInMinutes` outside ``acceptedDueInMinutes`` (an
  /// ``InvalidParameter``: `org.arbor.InvalidParameter` over the socket); either changes
  /// nothing.
  ///
  /// Over the socket: `arborctl call / addItem title='"Milk"'`.
  @discardableResult
  @Intent public func addItem(title: String? = nil, dueInMinutes: Int? = nil) throws -> TodoItem.ID {
    // Checked before anything changes: a date beyond what a timer can count would trap.
    if let dueInMinutes { try InvalidParameter.require(dueInMinutes, in: Self.acceptedDueInMinutes, "dueInMinutes") }
    return try node.transaction {
      let text = (title ?? newItemTitle).trimmingCharacters(in: .whitespaces)
      guard !text.isEmpty else { throw TodoError.emptyTitle }
      let due = dueInMinutes.map { node.date.now.addingTimeInterval(TimeInterval($0) * 60) }
      let item = TodoItem(title: text, due: due)
      items.append(item)
      if title == nil { newItemTitle = "" }
      return item.id
    }
  }

  /// Removes the item with this id.
  ///
  /// Over the socket: `arborctl call / remove id='"3ebfc8ae0913d5f6"'`.
  @Intent public func remove(id: TodoItem.ID) throws {
    guard let index = items.firstIndex(where: { $0.id == id }) else { throw TodoError.noSuchItem(id.description) }
    items.remove(at: index)
  }

  /// Removes every item that is done, as one step; returns how many went.
  ///
  /// Over the socket: `arborctl call / clearCompleted`.
  @discardableResult
  @Intent public func clearCompleted() -> Int {
    node.transaction {
      let before = items.count
      items.removeAll(where: \.isDone)
      return before - items.count
    }
  }

  /// Orders ``sortedItems`` by `order`, and hands the order down to the items. Not an edit:
  /// it is not undone and does not make the list dirty.
  ///
  /// Over the socket: `arborctl call / setSortOrder to='"title"'`.
  @Intent public func setSortOrder(to order: SortOrder) {
    sortOrder = order
    node.context.todoSortOrder = order
  }

  /// Clears ``isDirty``: the client has saved what it shows.
  ///
  /// Over the socket: `arborctl call / markSaved`.
  @Intent public func markSaved() {
    isDirty = false
  }

  /// What a client shows above the list: the counts, the titles in sort order, and whether
  /// an undo or redo is possible. Reads only, so it commits no revision.
  ///
  /// Over the socket: `arborctl call / summary`.
  @Intent public func summary() -> TodoSummary {
    let undo = node.undoSystem
    return TodoSummary(
      total: items.count, remaining: remaining, overdue: overdueCount, sortOrder: sortOrder,
      sortedTitles: sortedItems.map(\.title), isDirty: isDirty, canUndo: undo.canUndo, canRedo: undo.canRedo)
  }
}

/// The reply of ``TodoListModel/summary()``.
///
/// ```swift
/// let summary = list.summary()
/// print("\(summary.remaining) of \(summary.total) left")
/// ```
public struct TodoSummary: Codable, Sendable, Equatable {
  public var total: Int
  public var remaining: Int
  public var overdue: Int
  public var sortOrder: SortOrder
  public var sortedTitles: [String]
  public var isDirty: Bool
  public var canUndo: Bool
  public var canRedo: Bool

  /// A summary of these values.
  ///
  /// ```swift
  /// let empty = TodoSummary(total: 0, remaining: 0, overdue: 0, sortOrder: .created,
  ///                         sortedTitles: [], isDirty: false, canUndo: false, canRedo: false)
  /// ```
  public init(
    total: Int, remaining: Int, overdue: Int, sortOrder: SortOrder, sortedTitles: [String], isDirty: Bool, canUndo: Bool,
    canRedo: Bool
  ) {
    self.total = total
    self.remaining = remaining
    self.overdue = overdue
    self.sortOrder = sortOrder
    self.sortedTitles = sortedTitles
    self.isDirty = isDirty
    self.canUndo = canUndo
    self.canRedo = canRedo
  }
}
