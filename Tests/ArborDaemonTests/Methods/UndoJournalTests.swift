import ArborClient
import ArborJSON
import ArborTesting
import ProcessSlots
import Testing

/// Undo and redo are journalled as what caused them, and reply with their own revision.
@Suite(.startsProcesses) struct UndoJournalTests {
  @Test func undoAndRedoAreJournalledAsTheirCause() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let undone = try await client.call("history.undo")
      let redone = try await client.call("history.redo")
      let changes = try await client.call("history.changes", ["since": 2])["changes"]?.arrayValue ?? []
      #expect(changes.count == 2, "\(changes)")
      #expect(changes.first?["intent"] == "history.undo" && changes.first?["revision"] == undone["revision"], "\(changes)")
      #expect(changes.last?["intent"] == "history.redo" && changes.last?["revision"] == redone["revision"], "\(changes)")
    }
  }
}
