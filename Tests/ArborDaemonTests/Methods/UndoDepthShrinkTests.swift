import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// A restart with a smaller `--undo-depth` keeps only that many steps, in memory and in the
/// store: a later start with a larger depth does not bring the trimmed steps back.
@Suite(.startsProcesses) struct UndoDepthShrinkTests {
  @Test func aSmallerUndoDepthTrimsTheKeptHistoryAtStart() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let fsync = ["--fsync", "always"]
    // Ten steps under the default depth (100); seen[k] is the list after k steps.
    let (seen, killed) = try await withDaemon(binary: TodosCalls.todosd(), arguments: fsync, directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      var seen = [try await TodosCalls.items(client)]
      for step in 0..<10 {
        try await TodosCalls.intent(client, "addItem", ["title": .string("item \(step)")])
        seen.append(try await TodosCalls.items(client))
      }
      try execution.send(signal: .kill)
      return seen
    }
    #expect(killed == .signaled(9))

    try await withDaemon(binary: TodosCalls.todosd(), arguments: fsync + ["--undo-depth", "3"], directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      #expect(try await TodosCalls.items(client) == seen[10])
      for undone in 1...3 {
        try await TodosCalls.step(client, "history.undo")
        #expect(try await TodosCalls.items(client) == seen[10 - undone], "undo \(undone) of 3")
      }
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo", "a 4th undo under --undo-depth 3")
      #expect(try await TodosCalls.items(client) == seen[7], "the refused undo changed nothing")
      let trimmed = daemon.log.split(separator: "\n").filter { $0.contains("trimmed the kept undo history") }
      #expect(trimmed.count == 1, "one line says the history was trimmed: \(daemon.log)")
      #expect(trimmed.first?.contains("10 undo steps to 3 (--undo-depth 3)") == true, "\(trimmed)")
      try execution.send(signal: .kill)
    }

    // Trimmed for good: with the default depth again, the seven steps dropped stay dropped;
    // the three undone can still be redone.
    try await withDaemon(binary: TodosCalls.todosd(), arguments: fsync, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await TodosCalls.items(client) == seen[7])
      #expect(try await client.call("daemon.status")["undo"] == ["canUndo": false, "canRedo": true])
      #expect(await TodosCalls.nothingLeft(client, "history.undo") == "org.arbor.NothingToUndo")
      for redone in 1...3 {
        try await TodosCalls.step(client, "history.redo")
        #expect(try await TodosCalls.items(client) == seen[7 + redone], "redo \(redone) of 3")
      }
      #expect(await TodosCalls.nothingLeft(client, "history.redo") == "org.arbor.NothingToRedo")
      // The log (of every start, appended) still has the one line of the second start.
      let trimmed = daemon.log.split(separator: "\n").filter { $0.contains("trimmed the kept undo history") }
      #expect(trimmed.count == 1, "nothing to trim under the default depth: \(daemon.log)")
    }
  }
}
