import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import Testing

/// An intent that changes nothing commits nothing: its reply names the current revision,
/// and neither the journal nor a watcher sees a revision for it.
@Suite struct NoChangeIntentTests {
  @Test func clearingNothingIsNoRevision() async throws {
    try await withDaemon(binary: UndoRestartTests.todosd()) { daemon, _ in
      let client = try await daemon.connect()
      let watch = DeadlineIterator(ArborClient(socketPath: daemon.socket, reconnect: .never).watch())
      #expect(try await watch.next("the watch's first value").revision == 0)
      try await UndoRestartTests.intent(client, "addItem", ["title": "Milk"])
      // Nothing is done: clearing the completed items leaves the list as it was.
      let cleared = try await UndoRestartTests.intent(client, "clearCompleted")
      #expect(cleared == ["result": 0, "revision": 1])
      let again = try await UndoRestartTests.intent(client, "clearCompleted")
      #expect(again["revision"] == 1)
      // The next real change is revision 2, and the journal holds no empty revision.
      let toggled = try await UndoRestartTests.intent(client, "toggle", target: "/items/0")
      #expect(toggled["revision"] == 2)
      let changes = try await client.call("history.changes", ["since": 0])["changes"]?.arrayValue ?? []
      #expect(changes.map { $0["intent"] } == ["addItem", "toggle"], "\(changes)")
      #expect(changes.allSatisfy { $0["patch"]?.arrayValue?.isEmpty == false }, "\(changes)")
      // The watcher sees revisions 1 and 2 and nothing between them.
      #expect(try await watch.next("revision 1").revision == 1)
      #expect(try await watch.next("revision 2").revision == 2)
    }
  }
}
