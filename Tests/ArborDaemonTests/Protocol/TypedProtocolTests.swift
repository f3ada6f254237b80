import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// The protocol's types in `ArborRPC` are what the daemon sends: every method is in the
/// discovery document with the schemas of its types, every real reply reads into its
/// `Result` type and writes back the same JSON, and every notification's bytes read into
/// its `Params` type and write back the same bytes.
@Suite(.startsProcesses) struct TypedProtocolTests {
  /// Reads `raw` as `Definition.Result` and writes it again.
  static func rewritten<Definition: ArborMethodDefinition>(_ definition: Definition.Type, _ raw: JSONValue) throws -> JSONValue {
    try JSONValueEncoder().encode(JSONValueDecoder().decode(Definition.Result.self, from: raw))
  }

  /// Reads `params` as `Definition.Params` and writes them again.
  static func rewritten<Definition: ArborNotificationDefinition>(notification definition: Definition.Type, _ params: JSONValue) throws -> JSONValue {
    try JSONValueEncoder().encode(JSONValueDecoder().decode(Definition.Params.self, from: params))
  }

  @Test func everyMethodIsInTheDocumentWithItsTypes() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let raw = try await client.call(.discover)
      let document = try await client.call(RPCDiscover.self)
      #expect(try JSONValueEncoder().encode(document) == raw, "the document reads into OpenRPCDocument and back")
      #expect(document.openrpc == "1.3.2")
      #expect(Set(document.methods.map(\.name)) == Set(ArborMethod.allCases.map(\.rawValue)))
      for method in ArborMethod.allCases {
        guard let entry = document.methods.first(where: { $0.name == method.rawValue }) else { continue }
        #expect(entry.summary == method.definition.summary)
        #expect(entry.params.map(\.name) == method.parameters, "\(method.rawValue) declares its parameters in ArborMethod's order")
        #expect(entry.result.schema != .any, "\(method.rawValue) has a result schema")
        #expect(!entry.result.schema.value.jsonString.contains("$ref"), "\(method.rawValue)'s result schema stands alone")
        #expect(["reader", "operator", "admin"].contains(entry.role))
      }
      let required = document.methods.first { $0.name == "state.at" }?.params.filter { $0.required == true }.map(\.name)
      #expect(required == ["revision"])
    }
  }

  @Test func everyReplyReadsIntoItsResultTypeAndBack() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      var replies: [(ArborMethod, JSONValue)] = []
      func call(_ method: ArborMethod, _ params: JSONValue? = nil) async throws -> JSONValue {
        let reply = try await client.call(method, params)
        replies.append((method, reply))
        return reply
      }
      _ = try await call(.discover)
      _ = try await call(.status)
      _ = try await call(.metrics)
      _ = try await call(.intentCall, ["intent": "addButtonTapped"])
      _ = try await call(.intentCall, ["target": "/counters/0/counter", "intent": "incrementTapped"])
      _ = try await call(.stateGet, ["path": "/counters"])
      _ = try await call(.stateGet, ["path": "/counters/0/counter/alert"])
      let record = try await call(.stateSnapshot)
      _ = try await call(.historyChanges, ["since": 0, "limit": 1])
      _ = try await call(.historyChanges)
      _ = try await call(.stateAt, ["revision": 1])
      _ = try await call(.historyUndo)
      _ = try await call(.historyRedo)
      _ = try await call(.status)
      let watch = try await call(.stateWatch, ["path": "/counters/0/counter/alert"])
      _ = try await call(.stateWatch, ["since": 1])
      _ = try await call(.eventsWatch, ["types": ["CounterRowModel.Event"]])
      _ = try await call(.watchCancel, ["subscription": watch["subscription"] ?? .null])

      // The typed calls give what the JSON ones give.
      let typed = try await client.call(StateGet.self, .init(path: "/counters"))
      let json = try await client.call(.stateGet, ["path": "/counters"])
      #expect(try JSONValueEncoder().encode(typed) == json)
      let increment = try await client.call(IntentCall.self, .init(target: "/counters/0/counter", intent: "incrementTapped"))
      let step = try await client.call(HistoryUndo.self)
      #expect(step.revision == increment.revision + 1)
      #expect(step.canRedo)
      let status = try await ArborClient(socketPath: daemon.socket).call(DaemonStatus.self)
      #expect(status.name == "counterfactd" && status.protocol == ArborProtocol.version && status.revision == step.revision)
      let refused = await #expect(throws: ArborClientError.self) { try await client.call(StateGet.self, .init(path: "/nope")) }
      #expect(refused?.rpcError?.is(.pathNotFound) == true)

      _ = try await call(.stateRestore, ["record": record])
      // An upgrade would hand this daemon over to a process of its own: its reply is the
      // result as the daemon encodes it (`DaemonUpgradeTests` makes real ones).
      replies.append((.upgrade, try JSONValueEncoder().encode(DaemonUpgradeMethod.Result(pid: 4242, binary: "/usr/local/bin/counterfactd"))))
      #expect(Set(replies.map(\.0)) == Set(ArborMethod.allCases))
      for (method, reply) in replies {
        #expect(try Self.rewritten(method.definition, reply) == reply, "\(method.rawValue): \(reply.jsonString.prefix(300))")
      }
      #expect(replies.contains { $0.0 == .stateGet && $0.1["value"] == .null }, "a value that is null is kept")
      #expect(replies.contains { $0.0 == .historyChanges && $0.1["next"] == .null }, "the last page says so with null")
    }
  }

  /// Every notification line a watcher receives — patches, a path that goes, events, and a
  /// resync of a watcher that fell behind — reads into its type and writes back byte for
  /// byte; so do the watches' replies.
  @Test func everyNotificationsBytesReadIntoItsTypeAndBack() async throws {
    try await withDaemon(arguments: ["--watch-queue", "8"]) { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call(.intentCall, ["intent": "addButtonTapped"])
      try await driver.call(.intentCall, ["intent": "addButtonTapped"])
      let watcher = try RawSocket(path: daemon.socket, receiveBuffer: 4_096)
      watcher.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch"}"# + "\n")
      watcher.send(#"{"jsonrpc":"2.0","id":2,"method":"state.watch","params":{"path":"/counters/1/counter"}}"# + "\n")
      watcher.send(#"{"jsonrpc":"2.0","id":3,"method":"events.watch"}"# + "\n")
      // The watches are in place once a call after them is answered.
      watcher.send(#"{"jsonrpc":"2.0","id":4,"method":"daemon.status"}"# + "\n")
      try await withDeadline("the watches to be in place") {
        while try await driver.call(DaemonStatus.self).subscriptions < 3 { try await Task.sleep(for: .milliseconds(10)) }
      }
      try await driver.call(.intentCall, ["target": "/counters/1/counter", "intent": "incrementTapped"])
      try await driver.call(.intentCall, ["target": "/counters/1", "intent": "removeButtonTapped", "wait": "settled"])
      // Thousands of revisions the watcher does not read: it falls behind and is resynced.
      let increment: (method: String, params: JSONValue?) = ("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      for _ in 0..<8 { _ = try await driver.batch(Array(repeating: increment, count: 500)) }
      let target = try await driver.call(DaemonStatus.self).revision

      let (seen, failures) = try await withDeadline("the watcher to read up to revision \(target)", seconds: 60) {
        var seen: Set<String> = []
        var failures: [String] = []
        var framer = LineFramer(maxLineLength: 1 << 24)
        var revision: UInt64 = 0
        while revision < target {
          let received = watcher.readAvailable()
          if received.isEmpty {
            await watcher.waitUntilReadable()
            continue
          }
          framer.append(received)
          while let line = try framer.nextLine() {
            let bytes = Array(line) + [0x0A]
            let message = try JSONValue(parsing: bytes.dropLast())
            if message["id"] != nil {
              // A reply: the watches' read into their results, byte for byte.
              guard let response = RPCResponse(message), let result = response.result else { continue }
              let method: ArborMethod? = switch response.id { case 1, 2: .stateWatch; case 3: .eventsWatch; default: nil }
              guard let method else { continue }
              let again = RPCResponse(id: response.id, result: try Self.rewritten(method.definition, result)).jsonLine
              if again != bytes { failures.append("reply \(response.id): \(String(decoding: bytes, as: UTF8.self).prefix(200))") }
              continue
            }
            let request = try #require(try? RPCRequest(validating: message))
            let notification = try #require(ArborNotification(rawValue: request.method))
            let params = try Self.rewritten(notification: notification.definition, request.params ?? .null)
            let again = RPCRequest.notification(request.method, params: params).json.jsonLine
            if again != bytes { failures.append(String(decoding: bytes, as: UTF8.self).prefix(300).description) }
            switch notification {
            case .stateChanged:
              if request.params?["resync"] == true { seen.insert("resync") }
              if request.params?["exists"] == false { seen.insert("gone") }
              if request.params?["patch"] != nil { seen.insert("patch") }
              if request.params?["subscription"] == 1, let r = request.params?["revision"]?.intValue { revision = UInt64(r) }
            case .eventsEmitted: seen.insert("event")
            case .watchClosed: seen.insert("closed")
            }
          }
        }
        return (seen, failures)
      }
      #expect(failures.count == 0, "\(failures.count) lines do not write back the same:\n\(failures.prefix(5).joined(separator: "\n"))")
      #expect(seen.isSuperset(of: ["patch", "gone", "event", "resync"]), "seen: \(seen.sorted())")
    }
  }
}
