import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// A parameter out of an intent's range is the client's mistake: the real `todosd` answers
/// `addItem` with a due date no timer can count with `org.arbor.InvalidParameter` (1003),
/// naming the parameter and its range, changes nothing, and keeps serving (such a date
/// used to trap and stop the daemon).
@Suite(.startsProcesses) struct IntentParameterRangeTests {
  static let tooFar: [Int64] = [1 << 58, Int64.max, Int64.min, 52_560_001]

  @Test func aDueDateOutOfRangeIsInvalidParamsAndTheDaemonLives() async throws {
    try await withDaemon(binary: TodosCalls.todosd()) { daemon, _ in
      let client = try await daemon.connect()
      try await TodosCalls.intent(client, "addItem", ["title": "Milk", "dueInMinutes": 5])
      let before = try await client.call("state.get")
      for minutes in Self.tooFar {
        let refused = await #expect(throws: ArborClientError.self) {
          try await TodosCalls.intent(client, "addItem", ["title": "Later", "dueInMinutes": .int(minutes)])
        }
        guard case .daemon(let error)? = refused else { continue }
        #expect(error.code == 1003, "dueInMinutes \(minutes): \(error)")
        #expect(error.is(.invalidParameter))
        #expect(error.message.contains("dueInMinutes") && error.message.contains("-52560000 and 52560000"), "\(error.message)")
        #expect(error.data?["parameter"] == "dueInMinutes", "\(String(describing: error.data))")
      }
      // Alive, and nothing changed.
      #expect(try await client.call("daemon.status")["pid"] != nil)
      #expect(try await client.call("state.get") == before)
      let fresh = try await daemon.connect()
      #expect(try await TodosCalls.items(fresh).arrayValue?.count == 1)
      // The edges of the range are served.
      try await TodosCalls.intent(client, "addItem", ["title": "Far", "dueInMinutes": 52_560_000])
      try await TodosCalls.intent(client, "addItem", ["title": "Long ago", "dueInMinutes": -52_560_000])
      #expect(try await TodosCalls.items(client).arrayValue?.count == 3)
    }
  }

  @Test func overTheWebSocketTheRefusalIsTheReplyAndTheDaemonLives() async throws {
    let token = "range-token-for-the-inspector-0123456789"
    let tokenFile = try DaemonHarness.temporaryDirectory() + "/token"
    try (token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
    try await withDaemon(binary: TodosCalls.todosd(), arguments: ["--http", "127.0.0.1:0", "--http-token-file", tokenFile]) { daemon, _ in
      let port = try await httpPort(of: daemon)
      let before = try await daemon.connect().call("state.get")
      try await WebSocketTestClient.with(port: port, protocols: ["arbor.jsonrpc", "arbor.token." + token]) { socket in
        try await socket.send(
          #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addItem","params":{"title":"Later","dueInMinutes":288230376151711744}}}"#)
        let reply = try await socket.reply(to: 1)
        #expect(reply["result"] == nil, "\(reply)")
        #expect((reply["error"] as? [String: Any])?["code"] as? Int == 1003, "\(reply)")
        // The same connection is still served.
        try await socket.send(#"{"jsonrpc":"2.0","id":2,"method":"daemon.status"}"#)
        #expect(try await socket.reply(to: 2)["result"] != nil)
      }
      #expect(try await daemon.connect().call("state.get") == before)
    }
  }
}
