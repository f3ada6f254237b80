import Arbor
import ArborTesting
import Testing
import Todos

/// The guide's undo examples again in SwiftModel 1.0's spellings: the `.modelTesting`
/// trait, a plain `withAnchor()`, `expect` and `require`, exhaustive.
@Suite(.modelTesting) struct TodosModelTestingTests {
  @Test func theTitleBeingTypedIsNotUndone() async throws {
    let clock = SleepCountingClock()
    let list = TodoListModel().withAnchor(todoDependencies(clock))
    list.setNewItemTitle(to: "Milk")
    try list.addItem()
    await expect {
      list.items.map(\.title) == ["Milk"]
      list.newItemTitle == ""
    }
    list.setNewItemTitle(to: "Eggs")
    list.node.undoSystem.undo()
    await expect {
      list.items.isEmpty
      list.newItemTitle == "Eggs"
      list.node.undoSystem.canRedo
    }
    list.node.undoSystem.redo()
    await expect(list.items.map(\.title) == ["Milk"])
  }

  @Test func itemEditsUndoAndRedoOneStepAtATime() async throws {
    let clock = SleepCountingClock()
    let list = TodoListModel().withAnchor(todoDependencies(clock))
    try list.addItem(title: "Milk")
    let milk = try await require(list.items.first)
    try milk.rename(to: "Oat milk")
    milk.toggle()
    await expect {
      milk.title == "Oat milk"
      milk.isDone
    }
    list.node.undoSystem.undo()
    await expect(!milk.isDone)
    list.node.undoSystem.undo()
    await expect(milk.title == "Milk")
    list.node.undoSystem.redo()
    list.node.undoSystem.redo()
    await expect {
      milk.title == "Oat milk"
      milk.isDone
      !list.node.undoSystem.canRedo
      list.remaining == 0
    }
  }
}
