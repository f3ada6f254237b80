import Arbor
import ArborTesting
import Testing
import Todos

/// The same list as plain values: what `TodoListModel` should hold after any sequence of
/// edits, undos and redos. Every edit that changes the items (titles, done flags, tags,
/// which items and in what order) is one step; the title being typed and the sort order
/// are no steps, and an undo or redo leaves them as they are.
struct PlainTodoList: Equatable {
  struct Item: Equatable {
    var id: TodoItem.ID
    var title: String
    var isDone = false
    var tags: [String] = []
  }

  var items: [Item] = []
  var newItemTitle = ""
  var sortOrder: SortOrder = .created
  private(set) var undoStack: [[Item]] = []
  private(set) var redoStack: [[Item]] = []

  /// Applies `change` to the items; a change that changed something is a step.
  mutating func edit(_ change: (inout [Item]) -> Void) {
    var next = items
    change(&next)
    guard next != items else { return }
    undoStack.append(items)
    redoStack.removeAll()
    items = next
  }

  mutating func undo() {
    guard let previous = undoStack.popLast() else { return }
    redoStack.append(items)
    items = previous
  }

  mutating func redo() {
    guard let next = redoStack.popLast() else { return }
    undoStack.append(items)
    items = next
  }

  var remaining: Int { items.filter { !$0.isDone }.count }

  var sortedTitles: [String] {
    let indexed = Array(items.enumerated())
    let sorted: [(offset: Int, element: Item)]
    switch sortOrder {
    case .created: sorted = indexed
    case .title: sorted = indexed.sorted { ($0.element.title.lowercased(), $0.offset) < ($1.element.title.lowercased(), $1.offset) }
    case .doneLast: sorted = indexed.sorted { ($0.element.isDone ? 1 : 0, $0.offset) < ($1.element.isDone ? 1 : 0, $1.offset) }
    }
    return sorted.map(\.element.title)
  }

  func titles(taggedWith name: String) -> [String] {
    items.filter { $0.tags.contains(name) }.map(\.title)
  }
}

/// Random sequences of edits, undos and redos on a live `TodoListModel`, each step checked
/// against ``PlainTodoList``: the items with their ids, titles, done flags and tags, the
/// ephemeral title, the sort order, the memoized count and views (the sorted view reads
/// the sort order through the items' context), and whether an undo or redo is possible.
@Suite struct TodosRandomUndoTests {
  static let titles = ["Milk", "eggs", "Bread", "apple", "Tea"]
  static let tagNames = ["shop", "home", "work"]

  @Test(arguments: UInt64(1)...12)
  func randomEditsUndosAndRedosMatchThePlainList(seed: UInt64) async throws {
    var random = SeededRandomNumberGenerator(seed: seed)
    let clock = SleepCountingClock()
    let (list, anchor) = TodoListModel().andAnchor(todoDependencies(clock))
    var plain = PlainTodoList()
    var log: [String] = []

    for step in 1...200 {
      let action = Self.randomStep(list, &plain, &random)
      log.append(action)
      let mismatch = Self.mismatch(list, plain)
      #expect(mismatch == nil, "seed \(seed), step \(step) (\(action)): \(mismatch ?? "")\nsteps: \(log.suffix(8).joined(separator: "; "))")
      if mismatch != nil { break }
      // The loop is CPU-bound: let the other tests' tasks and the model's own run.
      if step % 8 == 0 { await Task.yield() }
    }
    withExtendedLifetime(anchor) {}
  }

  /// Does one random thing to both lists and says what.
  static func randomStep(_ list: TodoListModel, _ plain: inout PlainTodoList, _ random: inout SeededRandomNumberGenerator) -> String {
    let items = list.items
    let index = items.isEmpty ? nil : Int.random(in: 0..<items.count, using: &random)
    let title = titles.randomElement(using: &random)!
    let tag = tagNames.randomElement(using: &random)!
    switch Int.random(in: 0..<100, using: &random) {
    case 0..<12:
      let id = try! list.addItem(title: title)
      plain.edit { $0.append(.init(id: id, title: title)) }
      return "add \(title)"
    case 12..<17:
      list.setNewItemTitle(to: title)
      plain.newItemTitle = title
      return "type \(title)"
    case 17..<21:
      guard !list.newItemTitle.isEmpty else { return "add from an empty title: skipped" }
      let typed = plain.newItemTitle
      let id = try! list.addItem()
      plain.edit { $0.append(.init(id: id, title: typed)) }
      plain.newItemTitle = ""
      return "add the typed \(typed)"
    case 21..<30:
      guard let index else { return "rename: no item" }
      try! items[index].rename(to: title)
      plain.edit { $0[index].title = title }
      return "rename #\(index) to \(title)"
    case 30..<42:
      guard let index else { return "toggle: no item" }
      items[index].toggle()
      plain.edit { $0[index].isDone.toggle() }
      return "toggle #\(index)"
    case 42..<48:
      guard let index else { return "remove: no item" }
      try! list.remove(id: items[index].id)
      plain.edit { $0.remove(at: index) }
      return "remove #\(index)"
    case 48..<56:
      guard let index else { return "tag: no item" }
      try! items[index].addTag(name: tag)
      plain.edit { if !$0[index].tags.contains(tag) { $0[index].tags.append(tag) } }
      return "tag #\(index) \(tag)"
    case 56..<60:
      guard let index, let old = plain.items[index].tags.randomElement(using: &random) else { return "untag: nothing" }
      try! items[index].removeTag(name: old)
      plain.edit { $0[index].tags.remove(at: $0[index].tags.firstIndex(of: old)!) }
      return "untag #\(index) \(old)"
    case 60..<66:
      guard let index, let old = plain.items[index].tags.randomElement(using: &random) else { return "rename a tag: nothing" }
      try! items[index].renameTag(named: old, to: tag)
      plain.edit { $0[index].tags[$0[index].tags.firstIndex(of: old)!] = tag }
      return "rename tag \(old) of #\(index) to \(tag)"
    case 66..<70:
      list.clearCompleted()
      plain.edit { $0.removeAll(where: \.isDone) }
      return "clear completed"
    case 70..<74:
      let order = SortOrder.allCases.randomElement(using: &random)!
      list.setSortOrder(to: order)
      plain.sortOrder = order
      return "sort by \(order)"
    case 74..<89:
      list.node.undoSystem.undo()
      plain.undo()
      return "undo"
    default:
      list.node.undoSystem.redo()
      plain.redo()
      return "redo"
    }
  }

  /// What differs between the live list and the plain one, or nil.
  static func mismatch(_ list: TodoListModel, _ plain: PlainTodoList) -> String? {
    let live = list.items.map { PlainTodoList.Item(id: $0.id, title: $0.title, isDone: $0.isDone, tags: $0.tags.map(\.name)) }
    if live != plain.items { return "items: \(live) instead of \(plain.items)" }
    if list.newItemTitle != plain.newItemTitle { return "newItemTitle: \(list.newItemTitle) instead of \(plain.newItemTitle)" }
    if list.sortOrder != plain.sortOrder { return "sortOrder: \(list.sortOrder) instead of \(plain.sortOrder)" }
    if list.remaining != plain.remaining { return "remaining: \(list.remaining) instead of \(plain.remaining)" }
    let sorted = list.sortedItems.map(\.title)
    if sorted != plain.sortedTitles { return "sortedItems: \(sorted) instead of \(plain.sortedTitles)" }
    let active = list.activeItems.map(\.title)
    if active != plain.items.filter({ !$0.isDone }).map(\.title) { return "activeItems: \(active)" }
    for name in tagNames where list.items(taggedWith: name).map(\.title) != plain.titles(taggedWith: name) {
      return "items tagged \(name): \(list.items(taggedWith: name).map(\.title)) instead of \(plain.titles(taggedWith: name))"
    }
    let undo = list.node.undoSystem
    if undo.canUndo != !plain.undoStack.isEmpty || undo.canRedo != !plain.redoStack.isEmpty {
      return "canUndo \(undo.canUndo), canRedo \(undo.canRedo) instead of \(!plain.undoStack.isEmpty), \(!plain.redoStack.isEmpty)"
    }
    return nil
  }
}
