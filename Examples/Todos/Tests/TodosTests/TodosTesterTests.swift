import Arbor
import ArborTesting
import Foundation
import Testing
import Todos

/// The Todos models tested as the SwiftModel guide tests models: `andTester`, `assert`,
/// `didSend`, exhaustive by default. The first tests are the guide's undo examples; the
/// others each check one runtime feature the models use, with an assertion that fails if
/// that feature breaks.
@Suite struct TodosTesterTests {
  // MARK: The guide's undo examples

  /// `node.trackUndo(\.items)`: adding is a step, typing the next title is none, and the
  /// title the add cleared is not brought back by undoing it.
  @Test func theTitleBeingTypedIsNotUndone() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    list.setNewItemTitle(to: "Milk")
    try list.addItem()
    await tester.assert {
      list.items.map(\.title) == ["Milk"]
      list.newItemTitle == ""
      list.node.undoSystem.canUndo
    }
    list.setNewItemTitle(to: "Eggs")
    list.node.undoSystem.undo()
    await tester.assert {
      list.items.isEmpty
      list.newItemTitle == "Eggs"
      !list.node.undoSystem.canUndo
      list.node.undoSystem.canRedo
    }
    list.node.undoSystem.redo()
    await tester.assert {
      list.items.map(\.title) == ["Milk"]
      list.newItemTitle == "Eggs"
      !list.node.undoSystem.canRedo
    }
  }

  /// Each item tracks its own `title` and `isDone`: a rename and a toggle are a step each,
  /// undone and redone one at a time, on the same item.
  @Test func itemEditsUndoAndRedoOneStepAtATime() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    let milk = try #require(list.item(try list.addItem(title: "Milk")))
    try milk.rename(to: "Oat milk")
    milk.toggle()
    await tester.assert {
      list.items.map(\.id) == [milk.id]
      milk.title == "Oat milk"
      milk.isDone
    }
    list.node.undoSystem.undo()
    await tester.assert {
      !milk.isDone
      milk.title == "Oat milk"
    }
    list.node.undoSystem.undo()
    await tester.assert { milk.title == "Milk" }
    list.node.undoSystem.redo()
    await tester.assert { milk.title == "Oat milk" }
    list.node.undoSystem.redo()
    await tester.assert {
      milk.isDone
      !list.node.undoSystem.canRedo
    }
    list.node.undoSystem.undo()
    list.node.undoSystem.undo()
    list.node.undoSystem.undo()
    await tester.assert {
      list.items.isEmpty
      !milk.isDone
      milk.title == "Milk"
      !list.node.undoSystem.canUndo
    }
  }

  /// A removal (the item's event to its list) is undone with the same item, which tracks
  /// its edits again once it is back.
  @Test func anUndoneRemovalBringsBackTheSameItem() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    let milk = try #require(list.item(try list.addItem(title: "Milk")))
    milk.toggle()
    milk.removeTapped()
    await tester.assert {
      list.items.isEmpty
      milk.isDone
      milk.didSend(.removeTapped)
    }
    list.node.undoSystem.undo()
    await tester.assert {
      list.items.map(\.id) == [milk.id]
      list.items.first?.isDone == true
    }
    try milk.rename(to: "Oat milk")
    await tester.assert { milk.title == "Oat milk" }
    list.node.undoSystem.undo()
    await tester.assert { milk.title == "Milk" }
  }

  /// Clearing the completed items is one step, whatever it removes.
  @Test func clearingTheCompletedItemsIsOneStep() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    for title in ["Milk", "Eggs", "Bread"] { try list.addItem(title: title) }
    list.items[0].toggle()
    list.items[2].toggle()
    #expect(list.clearCompleted() == 2)
    await tester.assert {
      list.items.map(\.title) == ["Eggs"]
      list.items.map(\.isDone) == [false]
    }
    list.node.undoSystem.undo()
    await tester.assert {
      list.items.map(\.title) == ["Milk", "Eggs", "Bread"]
      list.items.map(\.isDone) == [true, false, true]
    }
  }

  // MARK: Each runtime feature the models use

  /// `node.isUniquelyReferenced`: a tag two items share is copied before one of them
  /// renames it; a tag only one item holds is renamed in place. Both are undoable.
  @Test func aSharedTagIsCopiedBeforeItIsRenamed() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    let milk = try #require(list.item(try list.addItem(title: "Milk")))
    let eggs = try #require(list.item(try list.addItem(title: "Eggs")))
    try milk.addTag(name: "shop")
    try eggs.addTag(name: "shop")
    let shop = try #require(milk.tags.first)
    await tester.assert {
      list.items.count == 2
      milk.tags.map(\.id) == [shop.id]
      eggs.tags.map(\.id) == [shop.id]
      shop.name == "shop"
      shop.isShared
    }
    try milk.renameTag(named: "shop", to: "errands")
    await tester.assert {
      milk.tags.map(\.name) == ["errands"]
      milk.tags.first?.id != shop.id
      eggs.tags.map(\.id) == [shop.id]
      shop.name == "shop"
      !shop.isShared
    }
    try eggs.renameTag(named: "shop", to: "market")
    await tester.assert {
      eggs.tags.map(\.id) == [shop.id]
      shop.name == "market"
    }
    list.node.undoSystem.undo()
    await tester.assert { shop.name == "shop" }
    list.node.undoSystem.undo()
    await tester.assert {
      milk.tags.map(\.id) == [shop.id]
      shop.isShared
    }
  }

  /// `node.memoize`: the remaining count and the filtered views follow every change of
  /// what they read, and an observer of the count wakes when it changes.
  @Test func theMemoizedCountAndViewsFollowTheItems() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    for title in ["Milk", "Eggs", "Bread"] { try list.addItem(title: title) }
    let (milk, eggs, bread) = (list.items[0], list.items[1], list.items[2])
    let remaining = DeadlineIterator(Observed { list.remaining })
    #expect(try await remaining.next("the first remaining count") == 3)
    eggs.toggle()
    #expect(try await remaining.next("the count once Eggs is done") == 2)
    try milk.addTag(name: "shop")
    await tester.assert {
      list.items.map(\.title) == ["Milk", "Eggs", "Bread"]
      eggs.isDone
      milk.tags.map(\.name) == ["shop"]
      list.remaining == 2
      list.activeItems.map(\.title) == ["Milk", "Bread"]
      list.completedItems.map(\.title) == ["Eggs"]
      list.items(taggedWith: "shop").map(\.title) == ["Milk"]
    }
    milk.toggle()
    try bread.addTag(name: "shop")
    try bread.rename(to: "Rye bread")
    #expect(try await remaining.next("the count once Milk is done") == 1)
    await tester.assert {
      milk.isDone
      bread.title == "Rye bread"
      bread.tags.map(\.name) == ["shop"]
      list.remaining == 1
      list.activeItems.map(\.title) == ["Rye bread"]
      list.completedItems.map(\.title) == ["Milk", "Eggs"]
      list.items(taggedWith: "shop").map(\.title) == ["Milk", "Rye bread"]
    }
    list.node.undoSystem.undo()
    list.node.undoSystem.undo()
    await tester.assert {
      bread.title == "Bread"
      bread.tags.isEmpty
      list.items(taggedWith: "shop").map(\.title) == ["Milk"]
    }
  }

  /// A context value: the list hands its sort order down, and each item's sort key reads
  /// it. The sort order is not an edit, so undo leaves it.
  @Test func theSortOrderReachesTheItemsAsContext() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    for title in ["milk", "Bread", "apple"] { try list.addItem(title: title) }
    list.items[1].toggle()
    await tester.assert {
      list.items.map(\.title) == ["milk", "Bread", "apple"]
      list.items.map(\.isDone) == [false, true, false]
      list.sortedItems.map(\.title) == ["milk", "Bread", "apple"]
    }
    list.setSortOrder(to: .title)
    await tester.assert {
      list.sortOrder == .title
      list.items.allSatisfy { $0.node.context.todoSortOrder == .title }
      list.sortedItems.map(\.title) == ["apple", "Bread", "milk"]
    }
    list.setSortOrder(to: .doneLast)
    await tester.assert {
      list.sortOrder == .doneLast
      list.node.context.todoSortOrder == .doneLast
      list.sortedItems.map(\.title) == ["milk", "apple", "Bread"]
    }
    list.node.undoSystem.undo()  // the toggle, not the sort order
    await tester.assert {
      list.sortOrder == .doneLast
      list.items.map(\.isDone) == [false, false, false]
      list.sortedItems.map(\.title) == ["milk", "Bread", "apple"]
    }
  }

  /// A preference: each overdue item contributes 1, and the list reads the sum. Items
  /// become overdue when their timer (a `node.task` on the clock dependency) fires.
  @Test func overdueItemsAddUpThroughThePreference() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    let milk = try #require(list.item(try list.addItem(title: "Milk", dueInMinutes: 5)))
    await clock.waitForSleeps(2)  // the list's debounce and Milk's timer
    let eggs = try #require(list.item(try list.addItem(title: "Eggs", dueInMinutes: 10)))
    await clock.waitForSleeps(4)
    await tester.assert {
      list.items.map(\.title) == ["Milk", "Eggs"]
      list.overdueCount == 0
    }
    await clock.advance(by: .seconds(300))
    await tester.assert {
      list.isDirty
      milk.isPastDue
      !eggs.isPastDue
      list.overdueCount == 1
    }
    await clock.advance(by: .seconds(300))
    await tester.assert {
      eggs.isPastDue
      list.overdueCount == 2
    }
    milk.toggle()
    await tester.assert {
      milk.isDone
      list.overdueCount == 1
    }
    // Already due: overdue at once, with no timer.
    let bread = try #require(list.item(try list.addItem(title: "Bread", dueInMinutes: 0)))
    await tester.assert {
      list.items.count == 3
      bread.isPastDue
      list.overdueCount == 2
    }
    list.node.undoSystem.undo()  // the add: Bread's contribution goes with it
    await tester.assert {
      list.items.count == 2
      list.overdueCount == 1
    }
  }

  /// `observeModifications` with a debounce on the clock dependency: the list is dirty
  /// once edits have paused for a second; typing the next title, sorting and saving are
  /// not edits.
  @Test func theDirtyFlagWaitsForTheEditsToPause() async throws {
    let clock = SleepCountingClock()
    let (list, tester) = TodoListModel().andTester(todoDependencies(clock))
    let milk = try #require(list.item(try list.addItem(title: "Milk")))
    await clock.waitForSleeps(1)
    await clock.advance(by: .milliseconds(600))
    try milk.rename(to: "Oat milk")
    // The rename's wait replaces the add's: the add's sleep is cancelled.
    await clock.waitForSleeps(2)
    await expectEventually("the add's debounce to be cancelled") { clock.sleepsCancelled == 1 }
    await clock.advance(by: .milliseconds(600))
    #expect(!list.isDirty, "1.2 s after the add, but 0.6 s after the rename")
    await tester.assert {
      list.items.map(\.title) == ["Oat milk"]
      !list.isDirty
    }
    await clock.advance(by: .milliseconds(400))
    await tester.assert { list.isDirty }

    list.markSaved()
    list.setNewItemTitle(to: "Eggs")
    list.setSortOrder(to: .title)
    milk.toggle()  // the one edit among these
    await clock.waitForSleeps(3)
    await tester.assert {
      !list.isDirty
      list.newItemTitle == "Eggs"
      list.sortOrder == .title
      list.node.context.todoSortOrder == .title
      milk.isDone
    }
    #expect(clock.sleepsStarted == 3, "only the toggle is an edit")
    await clock.advance(by: .seconds(1))
    await tester.assert { list.isDirty }
    // An undo is an edit too.
    list.markSaved()
    list.node.undoSystem.undo()
    await clock.waitForSleeps(4)
    await clock.advance(by: .seconds(1))
    await tester.assert {
      !milk.isDone
      list.isDirty
    }
  }

  /// The tree is saved and restored with a shared tag still shared.
  @Test func aRestoredListKeepsItsSharedTag() async throws {
    let clock = SleepCountingClock()
    let (list, anchor) = TodoListModel().andAnchor(todoDependencies(clock))
    try list.addItem(title: "Milk")
    try list.addItem(title: "Eggs")
    try list.items[0].addTag(name: "shop")
    try list.items[1].addTag(name: "shop")
    list.setSortOrder(to: .title)
    let data = try anchor.snapshot()
    let (restored, restoredAnchor) = try TodoListModel.andAnchor(restoring: data, todoDependencies(clock))
    #expect(restoredAnchor.revision == anchor.revision)
    #expect(restored.items.map(\.title) == ["Milk", "Eggs"])
    #expect(restored.items[0].tags.map(\.id) == restored.items[1].tags.map(\.id))
    #expect(restored.items[0].tags.first?.isShared == true)
    #expect(restored.sortedItems.map(\.title) == ["Eggs", "Milk"])
    withExtendedLifetime(anchor) {}
  }
}
