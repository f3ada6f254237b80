import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Undo that survives a restart: a real `todosd`, killed with SIGKILL and started again on
/// the same state directory, goes on undoing and redoing exactly where it was.
@Suite(.startsProcesses) struct UndoRestartTests {
  @Test func undoAndRedoGoOnWhereTheyWereAfterAKill() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    // Every reply waits for its revision to be on disk: nothing acknowledged may be lost.
    let arguments = ["--fsync", "always"]
    let (seen, killed) = try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      var seen = [try await TodosCalls.items(client)]
      let milk = try await TodosCalls.intent(client, "addItem", ["title": "Milk"])["result"]
      seen.append(try await TodosCalls.items(client))
      let eggs = try await TodosCalls.intent(client, "addItem", ["title": "Eggs"])["result"]
      seen.append(try await TodosCalls.items(client))
      let bread = try await TodosCalls.intent(client, "addItem", ["title": "Bread"])["result"]
      seen.append(try await TodosCalls.items(client))
      try await TodosCalls.intent(client, "rename", target: ["id": eggs ?? .null], ["to": "Brown eggs"])
      seen.append(try await TodosCalls.items(client))
      try await TodosCalls.intent(client, "addTag", target: ["id": milk ?? .null], ["name": "shop"])
      seen.append(try await TodosCalls.items(client))
      try await TodosCalls.intent(client, "remove", ["id": bread ?? .null])
      seen.append(try await TodosCalls.items(client))
      // Two undos: Bread is back, then Milk loses its tag.
      try await TodosCalls.step(client, "history.undo")
      try await TodosCalls.step(client, "history.undo")
      #expect(try await TodosCalls.items(client) == seen[4])
      try execution.send(signal: .kill)
      return seen
    }
    #expect(killed == .signaled(9))

    try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      #expect(daemon.log.contains("kept 4 undo and 2 redo steps"), "\(daemon.log)")
      #expect(try await TodosCalls.items(client) == seen[4])
      #expect(try await client.call("daemon.status")["undo"] == ["canUndo": true, "canRedo": true])
      // The two redos the killed daemon could still do.
      try await TodosCalls.step(client, "history.redo")
      #expect(try await TodosCalls.items(client) == seen[5], "the first redo after the restart")
      try await TodosCalls.step(client, "history.redo")
      #expect(try await TodosCalls.items(client) == seen[6], "the second redo after the restart: Bread removed again")
      #expect(await TodosCalls.nothingLeft(client, "history.redo") == "org.arbor.NothingToRedo")
      // Every step back to the empty list, through the removed item that comes back.
      for index in stride(from: 5, through: 0, by: -1) {
        try await TodosCalls.step(client, "history.undo")
        #expect(try await TodosCalls.items(client) == seen[index], "undo to the state after edit \(index)")
      }
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
      for index in 1...6 {
        try await TodosCalls.step(client, "history.redo")
        #expect(try await TodosCalls.items(client) == seen[index], "redo to the state after edit \(index)")
      }
    }
  }

  @Test func underFsyncAlwaysAnUndoRepliesOnlyOnceItIsOnDisk() async throws {
    // counterfactd, which commits nothing on its own (todosd's dirty flag would take a
    // revision of its own after a second). The daemon kills itself right after the journal
    // commits revision 3 (the undo), before any reply that waited for it is sent: a reply
    // to the undo would mean it did not wait.
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always"]
    try await withDaemon(arguments: arguments, directory: directory, environment: ["ARBOR_TEST_KILL_AFTER_COMMIT": "3"]) { daemon, _ in
      let client = try await daemon.connect()
      for _ in 0..<2 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      let reply = try? await withDeadline("the undo's reply or the end of the connection") { try await TodosCalls.step(client, "history.undo") }
      #expect(reply == nil, "the undo was answered (\(String(describing: reply))) before its revision was on disk")
    }
    // It was on disk: the restarted daemon has it, and can redo it.
    try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await client.call("state.get", ["path": "/counters"])["value"]?.arrayValue?.count == 1)
      try await TodosCalls.step(client, "history.redo")
      #expect(try await client.call("state.get", ["path": "/counters"])["value"]?.arrayValue?.count == 2)
    }
  }

  @Test func theHistoryIsBoundedByUndoDepthAcrossRestarts() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always", "--undo-depth", "2"]
    try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      for title in ["a", "b", "c", "d"] { try await TodosCalls.intent(client, "addItem", ["title": .string(title)]) }
      try execution.send(signal: .kill)
    }
    try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      try await TodosCalls.step(client, "history.undo")
      try await TodosCalls.step(client, "history.undo")
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
      let titles = try await TodosCalls.items(client).arrayValue?.map { $0["title"] }
      #expect(titles == ["a", "b"], "two steps were kept of four")
    }
  }

  @Test func aRestoreClearsTheHistoryForGood() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always"]
    try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      try await TodosCalls.intent(client, "addItem", ["title": "Milk"])
      let record = try await client.call("state.snapshot")
      try await TodosCalls.intent(client, "addItem", ["title": "Eggs"])
      try await TodosCalls.step(client, "history.undo")
      try await client.call("state.restore", ["record": record])
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
      #expect(await TodosCalls.nothingLeft(client, "history.redo") == "org.arbor.NothingToRedo")
      // A step after the restore is the only one.
      try await TodosCalls.intent(client, "addItem", ["title": "Bread"])
      try execution.send(signal: .kill)
    }
    try await withDaemon(binary: TodosCalls.todosd(), arguments: arguments, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await client.call("daemon.status")["undo"] == ["canUndo": true, "canRedo": false])
      try await TodosCalls.step(client, "history.undo")
      #expect(try await TodosCalls.items(client).arrayValue?.map { $0["title"] } == ["Milk"])
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
    }
  }
}
