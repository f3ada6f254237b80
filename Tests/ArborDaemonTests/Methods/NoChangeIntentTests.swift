import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// An intent that changes nothing commits nothing: its reply names the current revision,
/// and the journal has no revision for it.
@Suite(.startsProcesses) struct NoChangeIntentTests {
  @Test func clearingNothingIsNoRevision() async throws {
    try await withDaemon(binary: TodosCalls.todosd()) { daemon, _ in
      let client = try await daemon.connect()
      let added = try await TodosCalls.intent(client, "addItem", ["title": "Milk"])
      // Nothing is done: clearing the completed items leaves the list as it was. (The
      // list's own debounce may commit its dirty flag meanwhile, on a slow machine.)
      let cleared = try await TodosCalls.intent(client, "clearCompleted")
      #expect(cleared["result"] == 0)
      let again = try await TodosCalls.intent(client, "clearCompleted")
      let toggled = try await TodosCalls.intent(client, "toggle", target: "/items/0")
      let changes = try await client.call("history.changes", ["since": 0])["changes"]?.arrayValue ?? []
      // The journal has the add and the toggle, never a clearing, and no empty revision.
      #expect(!changes.contains { $0["intent"] == "clearCompleted" }, "\(changes)")
      #expect(changes.contains { $0["intent"] == "addItem" && $0["revision"] == added["revision"] }, "\(changes)")
      #expect(changes.contains { $0["intent"] == "toggle" && $0["revision"] == toggled["revision"] }, "\(changes)")
      #expect(changes.allSatisfy { $0["patch"]?.arrayValue?.isEmpty == false }, "\(changes)")
      // Each clearing replied with a revision that was already there, not one of its own.
      for reply in [cleared, again] {
        let revision = reply["revision"]?.intValue ?? -1
        #expect(revision >= added["revision"]?.intValue ?? 0 && revision < toggled["revision"]?.intValue ?? 0, "\(reply)")
      }
    }
  }
}
