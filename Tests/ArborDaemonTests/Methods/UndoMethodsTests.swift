import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import ProcessSlots
import Testing

/// `history.undo` and `history.redo` over the socket of a real `counterfactd`, whose root
/// tracks undo of its rows.
@Suite(.startsProcesses) struct UndoMethodsTests {
  @Test func undoAndRedoRestoreTheRowsAsOneRevisionEach() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await client.call("daemon.status")["undo"] == ["canUndo": false, "canRedo": false])
      let nothing = await #expect(throws: ArborClientError.self) { try await client.call("history.undo") }
      #expect(nothing?.rpcError?.is(.nothingToUndo) == true)
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      #expect(try await client.call("daemon.status")["undo"] == ["canUndo": true, "canRedo": false])
      let undone = try await client.call("history.undo")
      #expect(undone == ["revision": 3, "canUndo": true, "canRedo": true])
      #expect(try await client.call("state.get", ["path": "/counters"])["value"]?.arrayCount == 1)
      let redone = try await client.call("history.redo")
      #expect(redone["revision"] == 4)
      #expect(try await client.call("state.get", ["path": "/counters"])["value"]?.arrayCount == 2)
      let noRedo = await #expect(throws: ArborClientError.self) { try await client.call("history.redo") }
      #expect(noRedo?.rpcError?.is(.nothingToRedo) == true)
    }
  }

  @Test func aRootThatDoesNotTrackUndoSaysSo() async throws {
    // The fixture daemon's root never calls node.trackUndo.
    try await withDaemon(binary: DaemonHarness.fixtureBinary()) { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await client.call("daemon.status")["undo"] == .null)
      for method in ["history.undo", "history.redo"] {
        let refused = await #expect(throws: ArborClientError.self) { try await client.call(method) }
        #expect(refused?.rpcError?.is(.undoNotTracked) == true, "\(method): \(String(describing: refused))")
        #expect(refused?.rpcError?.code == 1013)
      }
    }
  }

  @Test func theMethodsAreDiscoverableAndNeedTheOperatorRole() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let document = try await client.call("rpc.discover")
      guard case .array(let methods)? = document["methods"] else {
        Issue.record("no methods in \(document)"); return
      }
      for name in ["history.undo", "history.redo"] {
        let method = methods.first { $0["name"] == .string(name) }
        #expect(method?["x-role"] == "operator")
        #expect(method?["result"]?["schema"]?["required"] == ["revision", "canUndo", "canRedo"])
      }
    }
  }
}

extension JSONValue {
  fileprivate var arrayCount: Int? {
    if case .array(let elements) = self { return elements.count }
    return nil
  }
}
