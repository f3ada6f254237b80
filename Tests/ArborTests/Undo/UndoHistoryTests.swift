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
      // The array of models is kept as a splice: undoing the append removes one element of one.
      .recorded(
        UndoStep(parts: [.init(model: list.id, type: "UndoTodoList", values: [:], splices: ["items": .init(at: 0, remove: 1, count: 1, insert: [])])]),
        limit: 10),
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

  @Test func anArrayOfModelsIsKeptAsTheSpliceOfWhatChanged() throws {
    let (list, anchor) = UndoTodoList().andAnchor()
    for index in 0..<50 { list.addItem("item \(index)") }
    #expect(anchor.keepUndoHistory(limit: 10))
    let (log, listener) = Self.follow(anchor)
    defer { listener.cancel() }
    let removed = list.items[10]
    list.items.remove(at: 10)
    guard case .recorded(let step, _)? = log.changes.first else {
      Issue.record("no step recorded: \(log.changes)")
      return
    }
    let splice = try #require(step.parts.first?.splices?["items"])
    #expect(splice.at == 10 && splice.remove == 0 && splice.count == 49)
    #expect(splice.insert.count == 1 && splice.insert.first?["title"] == "item 10" && splice.insert.first?["id"] == .string(removed.id.description))
    #expect(step.parts.first?.values.isEmpty == true, "the other 49 items are not in the step")
    // Kept and rebuilt in another tree, the splice brings the same item back in its place.
    let (record, history) = try anchor.snapshotRecordWithUndoHistory()
    let (restored, restoredAnchor) = try UndoTodoList.andAnchor(restoring: record)
    restoredAnchor.keepUndoHistory(restoring: try #require(history), limit: 10)
    restored.node.undoSystem.undo()
    #expect(restored.items.count == 50 && restored.items[10].id == removed.id && restored.items[10].title == "item 10")
    restored.node.undoSystem.redo()
    #expect(restored.items.count == 49 && !restored.items.contains { $0.id == removed.id })
  }

  @Test func everyKindOfEditToAnArrayOfModelsIsUndoneByItsSplice() throws {
    let (list, anchor) = UndoTodoList().andAnchor()
    for index in 0..<6 { list.addItem("item \(index)") }
    #expect(anchor.keepUndoHistory(limit: 20))
    // The edits that meet each end of the comparison: nothing in common at the front, at
    // the back, or at all; an empty array on either side; a move of an element.
    let edits: [(name: String, edit: () -> Void)] = [
      ("prepend", { list.items.insert(UndoTodoItem(title: "first"), at: 0) }),
      ("append", { list.addItem("last") }),
      ("replace the middle", { list.items.replaceSubrange(2..<4, with: [UndoTodoItem(title: "m1"), UndoTodoItem(title: "m2"), UndoTodoItem(title: "m3")]) }),
      ("swap the ends", { list.items.swapAt(0, list.items.count - 1) }),
      ("remove the first", { list.items.removeFirst() }),
      ("remove the last", { list.items.removeLast() }),
      ("replace all", { list.items = [UndoTodoItem(title: "x"), UndoTodoItem(title: "y")] }),
      ("clear", { list.items = [] }),
      ("fill", { list.items = [UndoTodoItem(title: "z")] }),
    ]
    var stages = [list.items.map { "\($0.id):\($0.title)" }]
    for (_, edit) in edits {
      edit()
      stages.append(list.items.map { "\($0.id):\($0.title)" })
    }
    // Rebuilt in another tree from the kept splices alone, undo walks back through every stage.
    let (record, history) = try anchor.snapshotRecordWithUndoHistory()
    let (restored, restoredAnchor) = try UndoTodoList.andAnchor(restoring: record)
    restoredAnchor.keepUndoHistory(restoring: try #require(history), limit: 20)
    #expect(restored.items.map { "\($0.id):\($0.title)" } == stages.last)
    for (index, (name, _)) in edits.enumerated().reversed() {
      restored.node.undoSystem.undo()
      #expect(restored.items.map { "\($0.id):\($0.title)" } == stages[index], "undoing \(name)")
    }
    for (index, (name, _)) in edits.enumerated() {
      restored.node.undoSystem.redo()
      #expect(restored.items.map { "\($0.id):\($0.title)" } == stages[index + 1], "redoing \(name)")
    }
  }

  @Test func aSpliceKeptForAnotherArrayIsRefusedAndReported() throws {
    let (list, anchor) = UndoTodoList().andAnchor()
    list.addItem("a")
    list.addItem("b")
    let wrong = UndoStep(parts: [.init(model: list.id, type: "UndoTodoList", values: [:], splices: ["items": .init(at: 4, remove: 1, count: 5, insert: [])])])
    anchor.keepUndoHistory(restoring: UndoHistory(undo: [wrong]), limit: 10)
    withKnownIssue("the splice was kept for an array of 5: it is refused, and that is reported") {
      list.node.undoSystem.undo()
    }
    #expect(list.items.map(\.title) == ["a", "b"])
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
