import Arbor
import ArborTesting
import Testing

@Model struct UndoTodoItem {
  var title: String
  var isDone: Bool = false

  func onActivate() {
    node.trackUndo(\.title, \.isDone)
  }
}

@Model struct UndoTodoList {
  var items: [UndoTodoItem] = []
  var searchQuery = ""

  func onActivate() {
    node.trackUndo(excluding: \.searchQuery)
  }

  func addItem(_ title: String) {
    items.append(UndoTodoItem(title: title))
  }

  func renameAndComplete(_ index: Int, to title: String) {
    node.transaction {
      items[index].title = title
      items[index].isDone = true
    }
  }
}

@Model struct UndoEditor {
  var title = ""
  var body = ""

  func onActivate() {
    node.trackUndo()
  }
}

@Model struct UndoPartial {
  var items: [String] = []
  var newItemTitle = ""

  func onActivate() {
    node.trackUndo(\.items)
  }
}

@Model struct UndoUntracked {
  var count = 0
}

/// `node.trackUndo` and the `undoSystem` dependency, as the SwiftModel guide spells them.
@Suite struct UndoTests {
  @Test func theGuidesEditorUndoesAndRedoesThroughTheStack() {
    let stack = ModelUndoStack()
    let editor = UndoEditor().withAnchor { $0.undoSystem.backend = stack }
    editor.title = "Draft"
    editor.body = "Hello"
    #expect(stack.undoCount == 2)
    stack.undo()
    #expect(editor.body == "")
    #expect(editor.title == "Draft")
    stack.undo()
    #expect(editor.title == "")
    #expect(!stack.canUndo)
    #expect(stack.canRedo)
    stack.redo()
    #expect(editor.title == "Draft")
    stack.redo()
    #expect(editor.body == "Hello")
    #expect(!stack.canRedo)
  }

  @Test func anExcludedEphemeralFieldIsNeitherRecordedNorUndone() {
    let stack = ModelUndoStack()
    let list = UndoTodoList().withAnchor { $0.undoSystem.backend = stack }
    list.addItem("Milk")
    list.searchQuery = "mi"
    #expect(stack.undoCount == 1, "the search query is not a step")
    list.addItem("Bread")
    list.searchQuery = "bre"
    stack.undo()
    #expect(list.items.map(\.title) == ["Milk"])
    #expect(list.searchQuery == "bre", "the search query is not undone")
    stack.redo()
    #expect(list.items.map(\.title) == ["Milk", "Bread"])
    #expect(list.searchQuery == "bre")
  }

  @Test func childModelsTrackTheirOwnPropertiesAndOneTransactionIsOneStep() {
    let stack = ModelUndoStack()
    let list = UndoTodoList().withAnchor { $0.undoSystem.backend = stack }
    list.addItem("Milk")
    let milk = list.items[0]
    list.renameAndComplete(0, to: "Oat milk")
    #expect(stack.undoCount == 2, "the transaction that changed two properties is one step")
    list.node.undoSystem.undo()
    #expect(milk.title == "Milk")
    #expect(milk.isDone == false)
    list.node.undoSystem.redo()
    #expect(milk.title == "Oat milk")
    #expect(milk.isDone)
  }

  @Test func undoingARemovalBringsTheSameModelBack() {
    let stack = ModelUndoStack()
    let list = UndoTodoList().withAnchor { $0.undoSystem.backend = stack }
    list.addItem("Milk")
    list.addItem("Bread")
    let bread = list.items[1]
    list.items.remove(at: 1)
    stack.undo()
    #expect(list.items.map(\.id) == [list.items[0].id, bread.id])
    #expect(list.items[1].title == "Bread")
    list.items[1].isDone = true
    #expect(stack.undoCount == 3, "the model brought back tracks its properties again")
    stack.undo()
    #expect(list.items[1].isDone == false)
  }

  @Test func trackingSomePathsLeavesTheOthersOut() {
    let stack = ModelUndoStack()
    let model = UndoPartial().withAnchor { $0.undoSystem.backend = stack }
    model.newItemTitle = "Eggs"
    #expect(!stack.canUndo)
    model.items.append("Eggs")
    model.newItemTitle = ""
    stack.undo()
    #expect(model.items == [])
    #expect(model.newItemTitle == "")
  }

  @Test func theDefaultBackendIsAStackOfTheTreesOwn() {
    let first = UndoEditor().withAnchor()
    let second = UndoEditor().withAnchor()
    first.title = "One"
    #expect(first.node.undoSystem.canUndo)
    #expect(first.node.undoSystem.backend is ModelUndoStack)
    #expect(!second.node.undoSystem.canUndo, "each tree has its own stack")
    #expect(first.node.undoSystem.isTracking)
    first.node.undoSystem.undo()
    #expect(first.title == "")
    #expect(first.node.undoSystem.canRedo)
  }

  @Test func aModelThatDoesNotTrackUndoRecordsNothing() {
    let model = UndoUntracked().withAnchor()
    model.count = 3
    #expect(!model.node.undoSystem.isTracking)
    #expect(!model.node.undoSystem.canUndo)
    model.node.undoSystem.undo()
    #expect(model.count == 3)
  }

  @Test func anUndoIsOneRevision() throws {
    let editor = UndoEditor().withAnchor()
    editor.node.transaction {
      editor.title = "T"
      editor.body = "B"
    }
    let before = try #require(editor.node.revision)
    editor.node.undoSystem.undo()
    #expect(editor.node.revision == before + 1)
    #expect(editor.title == "" && editor.body == "")
  }

  @Test func canUndoAndCanRedoAreObservable() async throws {
    let editor = UndoEditor().withAnchor()
    let availability = DeadlineIterator(Observed { [editor.node.undoSystem.canUndo, editor.node.undoSystem.canRedo] })
    #expect(try await availability.next("nothing to undo") == [false, false])
    editor.title = "Draft"
    #expect(try await availability.next("something to undo") == [true, false])
    editor.node.undoSystem.undo()
    #expect(try await availability.next("something to redo") == [false, true])
  }

  @Test func swappingTheBackendAtRuntimeSendsNewStepsToIt() {
    let editor = UndoEditor().withAnchor()
    let stack = ModelUndoStack()
    editor.node.undoSystem.backend = stack
    editor.title = "Draft"
    #expect(stack.undoCount == 1)
    #expect(editor.node.undoSystem.backend === stack)
  }

  /// Writers on several tasks while another undoes and redoes: no crash, no race
  /// (ThreadSanitizer runs this too), every value the one of some write, and the stack
  /// can be undone to its end afterwards.
  @Test func concurrentWritersAndUndoKeepTheTreeUsable() async throws {
    let stack = ModelUndoStack()
    let editor = UndoEditor().withAnchor { $0.undoSystem.backend = stack }
    let steps = Tally()
    // 600 writes and 100 undo rounds, each round a turn on the pool: the deadline is about
    // those steps, not the clock.
    try await withProgressDeadline("4 writers and 100 rounds of undo and redo", progress: { steps.value }) {
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<4 {
          group.addTask {
            for step in 0..<150 {
              editor.title = "w\(writer)-\(step)"
              steps.add()
            }
          }
        }
        group.addTask {
          for round in 0..<100 {
            if round % 3 == 2 { editor.node.undoSystem.redo() } else { editor.node.undoSystem.undo() }
            steps.add()
            await Task.yield()
          }
        }
      }
    }
    #expect(editor.title.isEmpty || editor.title.hasPrefix("w"), "\(editor.title)")
    var undone = 0
    while editor.node.undoSystem.canUndo && undone < 2_000 {
      editor.node.undoSystem.undo()
      undone += 1
    }
    #expect(!editor.node.undoSystem.canUndo, "the stack undoes to its end")
    #expect(undone <= 600, "at most one step per write")
  }
}
