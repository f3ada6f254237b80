import Arbor
import ArborJSON
import ArborTesting
import ConcurrencyExtras
import Testing

/// `ModelAnchor.keepUndoHistory`: the history as JSON, carried by the change sets, and
/// rebuilt into a restored tree so that undo and redo go on where they were.
@Suite struct UndoHistoryTests {
  /// The history changes of every change set, by revision.
  final class HistoryLog: Sendable {
    let entries = LockIsolated<[(revision: UInt64, changes: [UndoHistoryChange])]>([])
    var mirrored: UndoHistory {
      var history = UndoHistory()
      for entry in entries.value { for change in entry.changes { history.apply(change) } }
      return history
    }
    var changes: [UndoHistoryChange] { entries.value.flatMap(\.changes) }
  }

  static func follow<M: Model>(_ anchor: ModelAnchor<M>) -> (HistoryLog, ChangeSetListener) {
    let log = HistoryLog()
    let listener = anchor.listen(limit: .max) { delivery in
      if case .committed(let changeSet) = delivery { log.entries.withValue { $0.append((changeSet.revision, changeSet.undoHistory)) } }
    }
    return (log, listener)
  }

  @Test func changeSetsSayWhatEachCommitDidToTheHistory() throws {
    let (list, anchor) = UndoTodoList().andAnchor()
    #expect(anchor.keepUndoHistory(limit: 10))
    let (log, listener) = Self.follow(anchor)
    defer { listener.cancel() }

    list.addItem("Milk")
    let item = list.items[0]
    item.title = "Eggs"
    list.searchQuery = "e"  // not tracked: no step
    list.node.undoSystem.undo()
    #expect(item.title == "Milk")
    list.node.undoSystem.redo()
    #expect(item.title == "Eggs")

    let expected: [UndoHistoryChange] = [
      .recorded(UndoStep(parts: [.init(model: list.id, type: "UndoTodoList", values: ["items": []])]), limit: 10),
      .recorded(UndoStep(parts: [.init(model: item.id, type: "UndoTodoItem", values: ["title": "Milk"])]), limit: 10),
      .undone(redo: UndoStep(parts: [.init(model: item.id, type: "UndoTodoItem", values: ["title": "Eggs"])])),
      .redone(undo: UndoStep(parts: [.init(model: item.id, type: "UndoTodoItem", values: ["title": "Milk"])])),
    ]
    #expect(log.changes == expected)
    // The search query's revision moved nothing in the history.
    #expect(log.entries.value.count == 5)
    #expect(log.entries.value[2].changes.isEmpty)
    #expect(anchor.undoHistory == log.mirrored)
    #expect(anchor.undoHistory?.undo.count == 2 && anchor.undoHistory?.redo.isEmpty == true)
  }

  @Test func theLimitDropsTheOldestStepsAndRemoveAllIsACommit() throws {
    let (editor, anchor) = UndoEditor().andAnchor()
    #expect(anchor.keepUndoHistory(limit: 2))
    let (log, listener) = Self.follow(anchor)
    defer { listener.cancel() }
    editor.title = "a"
    editor.title = "b"
    editor.title = "c"
    #expect(anchor.undoHistory?.undo.map { $0.parts[0].values["title"] } == ["a", "b"])
    #expect(log.mirrored == anchor.undoHistory)
    let revision = anchor.revision
    let stack = try #require(editor.node.undoSystem.backend as? ModelUndoStack)
    stack.removeAll()
    #expect(anchor.revision == revision + 1, "forgetting the steps is a revision of its own")
    #expect(log.changes.last == .cleared)
    #expect(anchor.undoHistory == UndoHistory())
    #expect(!editor.node.undoSystem.canUndo)
  }

  @Test func aRestoredTreeUndoesAndRedoesAsTheOriginalWould() throws {
    let (list, anchor) = UndoTodoList().andAnchor()
    anchor.keepUndoHistory(limit: 100)
    list.addItem("Milk")
    list.addItem("Bread")
    list.items[0].title = "Oat milk"
    list.renameAndComplete(1, to: "Rye")
    list.items.remove(at: 0)
    list.node.undoSystem.undo()  // Oat milk is back
    list.node.undoSystem.undo()  // Bread again, not done
    let (record, kept) = try anchor.snapshotRecordWithUndoHistory()
    let history = try #require(kept)
    #expect(history.undo.count == 3 && history.redo.count == 2)

    let (restored, restoredAnchor) = try UndoTodoList.andAnchor(restoring: record)
    #expect(restoredAnchor.keepUndoHistory(restoring: history, limit: 100))
    #expect(restored.node.undoSystem.canUndo && restored.node.undoSystem.canRedo)
    // Step by step, both trees go through the same states.
    let moves: [Bool] = [true, true, true, false, false, false, false, false, true]
    for (index, undoing) in moves.enumerated() {
      for tree in [list, restored] {
        if undoing { tree.node.undoSystem.undo() } else { tree.node.undoSystem.redo() }
      }
      #expect(try restoredAnchor.state().value == anchor.state().value, "after move \(index) (\(undoing ? "undo" : "redo"))")
      #expect(restored.node.undoSystem.canUndo == list.node.undoSystem.canUndo)
      #expect(restored.node.undoSystem.canRedo == list.node.undoSystem.canRedo)
      #expect(restoredAnchor.undoHistory == anchor.undoHistory, "after move \(index)")
    }
    // The item removed and brought back by a redo of the kept step is the model with its id,
    // and its own steps still find it.
    #expect(restored.items.map(\.id) == list.items.map(\.id))
  }

  @Test func aStepWhoseModelIsGoneRestoresNothingButIsStillARevision() throws {
    let (editor, anchor) = UndoEditor(title: "kept").andAnchor()
    let gone = UndoStep(parts: [.init(model: ModelID("00000000000000aa")!, type: "UndoEditor", values: ["title": "x"])])
    #expect(anchor.keepUndoHistory(restoring: UndoHistory(undo: [gone]), limit: 10))
    let revision = anchor.revision
    editor.node.undoSystem.undo()
    #expect(editor.title == "kept")
    #expect(anchor.revision == revision + 1)
    #expect(!editor.node.undoSystem.canUndo)
    #expect(editor.node.undoSystem.canRedo)
  }

  @Test func aValueThatNoLongerDecodesIsReportedAndTheRestStillRestores() throws {
    let (editor, anchor) = UndoEditor(title: "now", body: "now").andAnchor()
    let step = UndoStep(parts: [.init(model: editor.id, type: "UndoEditor", values: ["title": 42, "body": "then"])])
    anchor.keepUndoHistory(restoring: UndoHistory(undo: [step]), limit: 10)
    withKnownIssue("the kept title is a number: it cannot be decoded, and that is reported") {
      editor.node.undoSystem.undo()
    }
    #expect(editor.body == "then")
    #expect(editor.title == "now")
  }

  @Test func aBackendOfYourOwnIsNotKept() {
    final class Recording: UndoBackend, @unchecked Sendable {  // Sendable: never mutated
      var canUndo: Bool { false }
      var canRedo: Bool { false }
      func push(_ entry: ModelUndoEntry) {}
      func undo() {}
      func redo() {}
      func observeAvailability(_ onChange: @escaping @Sendable () -> Void) -> UndoAvailabilityObservation {
        UndoAvailabilityObservation {}
      }
    }
    let backend = Recording()
    let (editor, anchor) = UndoEditor().andAnchor { $0.undoSystem.backend = backend }
    #expect(!anchor.keepUndoHistory(limit: 10))
    #expect(editor.node.undoSystem.backend === backend)
    #expect(anchor.undoHistory == nil)
  }
}
