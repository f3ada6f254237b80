import Arbor
import ArborTesting
import Dependencies
import Testing
import Todos

/// Undo that survives a restart, in process: random edits, undos and redos on a list whose
/// undo history is kept (`keepUndoHistory`), restarted at random moments from a snapshot
/// and the history rebuilt from its change sets alone, as a daemon's journal keeps it. Each
/// step is checked against ``PlainTodoList``, which never restarts.
@Suite struct TodosUndoRestartTests {
  /// A tree, and the history its change sets described since it started.
  final class Running: Sendable {
    let list: TodoListModel
    let anchor: ModelAnchor<TodoListModel>
    let journalled: LockIsolated<UndoHistory>
    let listener: ChangeSetListener

    init(_ list: TodoListModel, _ anchor: ModelAnchor<TodoListModel>, history: UndoHistory) {
      self.list = list
      self.anchor = anchor
      #expect(anchor.keepUndoHistory(restoring: history, limit: 1_000))
      let journalled = LockIsolated(history)
      self.journalled = journalled
      listener = anchor.listen(limit: .max) { delivery in
        guard case .committed(let changeSet) = delivery else { return }
        journalled.withValue { history in for change in changeSet.undoHistory { history.apply(change) } }
      }
    }

    /// A restart: the state's snapshot, and the history as the change sets told it.
    func restarted(_ clock: SleepCountingClock) throws -> Running {
      listener.cancel()
      let record = try anchor.snapshotRecord()
      let (list, anchor) = try TodoListModel.andAnchor(restoring: record, todoDependencies(clock))
      return Running(list, anchor, history: journalled.value)
    }
  }

  @Test(arguments: UInt64(1)...8)
  func randomEditsUndosAndRedosGoOnAcrossRestarts(seed: UInt64) async throws {
    var random = SeededRandomNumberGenerator(seed: seed)
    let clock = SleepCountingClock()
    let (list, anchor) = TodoListModel().andAnchor(todoDependencies(clock))
    var running = Running(list, anchor, history: UndoHistory())
    var plain = PlainTodoList()
    var log: [String] = []
    var restarts = 0

    for step in 1...200 {
      let action: String
      if Int.random(in: 0..<100, using: &random) < 8 {
        // What the change sets said must be what the tree holds, before every restart.
        #expect(running.journalled.value == running.anchor.undoHistory, "seed \(seed), step \(step): the change sets lost track of the history")
        running = try running.restarted(clock)
        restarts += 1
        action = "restart"
      } else {
        action = TodosRandomUndoTests.randomStep(running.list, &plain, &random)
      }
      log.append(action)
      let mismatch = TodosRandomUndoTests.mismatch(running.list, plain)
      #expect(mismatch == nil, "seed \(seed), step \(step) (\(action)): \(mismatch ?? "")\nsteps: \(log.suffix(8).joined(separator: "; "))")
      if mismatch != nil { break }
      if step % 8 == 0 { await Task.yield() }
    }
    #expect(restarts > 0, "seed \(seed) never restarted")
    running.listener.cancel()
  }
}
