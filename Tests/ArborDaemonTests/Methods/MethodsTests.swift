import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import ProcessSlots
import Testing

/// Every method of the daemon, called over the socket of a real `counterfactd`.
@Suite(.startsProcesses) struct MethodsTests {
  @Test func statusNamesTheDaemonAndCountsClients() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let status = try await client.call("daemon.status")
      #expect(status["name"] == "counterfactd")
      #expect(status["root"] == "AppModel")
      #expect(status["pid"] == .int(Int64(daemon.pid)))
      #expect(status["revision"] == 0)
      // The harness's own probe connection may not have been noticed gone yet, nor even
      // accepted: the daemon's loops accept in parallel, so this client may be counted
      // before the probe that connected first, which then comes and goes. Each count is
      // awaited, never read once.
      try await eventually("daemon.status to count 1 client") { try await client.call("daemon.status")["clients"] == 1 }
      let second = try await daemon.connect()
      try await eventually("daemon.status to count 2 clients") { try await second.call("daemon.status")["clients"] == 2 }
      second.close()
      try await eventually("daemon.status to count 1 client again") { try await client.call("daemon.status")["clients"] == 1 }
    }
  }

  @Test func getReadsTheRootOrAPathWithItsRevision() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let added = try await client.call("intent.call", ["intent": "addButtonTapped"])
      #expect(added["revision"] == 1)
      let root = try await client.call("state.get")
      #expect(root["revision"] == 1)
      #expect(root["value"]?["counters"]?[0]?["counter"]?["count"] == 0)
      let count = try await client.call("state.get", ["path": "/counters/0/counter/count"])
      #expect(count == ["revision": 1, "value": 0])
      let missing = await #expect(throws: ArborClientError.self) {
        try await client.call("state.get", ["path": "/counters/5"])
      }
      #expect(missing?.rpcError?.is(.pathNotFound) == true)
      let malformed = await #expect(throws: ArborClientError.self) {
        try await client.call("state.get", ["path": "counters"])
      }
      #expect(malformed?.rpcError?.code == -32602)
      #expect(malformed?.rpcError?.message.contains("not a JSON Pointer") == true)
    }
  }

  @Test func intentsAreCalledByPathOrByID() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let byPath = try await client.call("intent.call", ["target": "/counters/1/counter", "intent": "incrementTapped"])
      #expect(byPath["revision"] == 3)
      let state = try await client.call("state.get")
      guard case .string(let id)? = state["value"]?["counters"]?[0]?["counter"]?["id"] else {
        Issue.record("no id in \(state)"); return
      }
      try await client.call("intent.call", ["target": ["id": .string(id)], "intent": "decrementTapped"])
      let counts = try await client.call("state.get", ["path": "/counters"])
      #expect(counts["value"]?[0]?["counter"]?["count"] == -1)
      #expect(counts["value"]?[1]?["counter"]?["count"] == 1)
    }
  }

  @Test func intentErrorsCarryTheirNamesAndWhatToFix() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let unknownIntent = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "explode"])
      }
      #expect(unknownIntent?.rpcError?.code == 1002)
      #expect(unknownIntent?.rpcError?.is(.intentNotFound) == true)
      #expect(unknownIntent?.rpcError?.data?["available"] == ["incrementTapped", "decrementTapped", "factButtonTapped", "alertDismissed"])
      let unknownTarget = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["target": "/counters/9/counter", "intent": "incrementTapped"])
      }
      #expect(unknownTarget?.rpcError?.is(.targetNotFound) == true)
      let unknownID = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["target": ["id": "00000000000000ff"], "intent": "incrementTapped"])
      }
      #expect(unknownID?.rpcError?.is(.targetNotFound) == true)
      let wrongType = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["target": "/counters/0", "intent": "factTapped", "params": ["count": "three"]])
      }
      #expect(wrongType?.rpcError?.name != nil)
      let badTarget = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["target": 7, "intent": "incrementTapped"])
      }
      #expect(badTarget?.rpcError?.code == -32602)
      #expect(badTarget?.rpcError?.data?["parameter"] == "target")
      let missingIntent = await #expect(throws: ArborClientError.self) { try await client.call("intent.call", [:]) }
      #expect(missingIntent?.rpcError?.message == "Invalid params: intent.call needs the parameter 'intent' (a string)")
    }
  }

  @Test func settledWaitsForTheTasksAnIntentStarted() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      // The fact is fetched in a task (over the network, or failing without one); a settled
      // call returns once that task has ended and its writes are in.
      let settled = try await client.call(
        "intent.call", ["target": "/counters/0/counter", "intent": "factButtonTapped", "wait": "settled"])
      let counter = try await client.call("state.get", ["path": "/counters/0/counter"])
      #expect(counter["value"]?["isLoadingFact"] == false)
      guard case .int(let revision)? = settled["revision"], case .int(let now)? = counter["revision"] else {
        Issue.record("no revisions in \(settled) and \(counter)")
        return
      }
      #expect(revision >= 3, "the revision of a settled call includes its task's write (loading, then done)")
      #expect(now >= revision)
      let wrong = await #expect(throws: ArborClientError.self) {
        try await client.call("intent.call", ["intent": "addButtonTapped", "wait": "eventually"])
      }
      #expect(wrong?.rpcError?.code == -32602)
      #expect(wrong?.rpcError?.message == #"Invalid params: parameter 'wait' of intent.call must be "committed" or "settled", not "eventually""#)
    }
  }

  @Test func oneEventLoopServesSeveralClients() async throws {
    try await withDaemon(arguments: ["--event-loops", "1"]) { daemon, _ in
      let clients = [try await daemon.connect(), try await daemon.connect(), try await daemon.connect()]
      try await clients[0].call("intent.call", ["intent": "addButtonTapped"])
      for client in clients {
        try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      }
      let count = try await clients[2].call("state.get", ["path": "/counters/0/counter/count"])
      #expect(count == ["revision": 4, "value": 3])
    }
  }

  @Test func unknownMethodsAndParametersAreNamed() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let unknown = await #expect(throws: ArborClientError.self) { try await client.call("state.gett") }
      #expect(unknown?.rpcError?.code == -32601)
      #expect(unknown?.rpcError?.data?["available"]?[0] == "rpc.discover")
      let extra = await #expect(throws: ArborClientError.self) { try await client.call("state.get", ["paht": ""]) }
      #expect(extra?.rpcError?.message == "Invalid params: state.get has no parameter 'paht' (it takes path)")
      let positional = await #expect(throws: ArborClientError.self) { try await client.call("state.get", [""]) }
      #expect(positional?.rpcError?.code == -32602)
    }
  }

  @Test func discoverListsMethodsIntentsAndSchemas() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let document = try await client.call("rpc.discover")
      #expect(document["openrpc"] == "1.3.2")
      guard case .array(let methods)? = document["methods"] else { Issue.record("no methods"); return }
      let names = methods.compactMap { method -> String? in
        if case .string(let name)? = method["name"] { return name }
        return nil
      }
      #expect(names == ["rpc.discover", "daemon.status", "daemon.metrics", "state.get", "state.snapshot", "state.restore", "intent.call", "state.watch", "events.watch", "watch.cancel", "history.changes", "state.at", "history.undo", "history.redo", "daemon.upgrade"])
      #expect(document["components"]?["x-intents"]?["CounterModel"]?["incrementTapped"] != nil)
      #expect(document["components"]?["schemas"]?["State"]?["$defs"]?["AppModel"] != nil)
    }
  }

  @Test func snapshotAndRestoreReplaceTheTreeAndKeepRevisionsIncreasing() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let record = try await client.call("state.snapshot")
      #expect(record["root"] == "AppModel")
      #expect(record["revision"] == 1)
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let watcher = try await daemon.connect()
      let watch = try await watcher.call("state.watch", ["path": "/counters"])
      #expect(watch["value"]?[2] != nil)
      let restored = try await client.call("state.restore", ["record": record])
      #expect(restored["revision"] == 4, "a restore never reuses a revision")
      let state = try await client.call("state.get", ["path": "/counters"])
      guard case .array(let counters)? = state["value"] else { Issue.record("no counters"); return }
      #expect(counters.count == 1)
      let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
      let resync = try await notifications.next("the watcher's resync after the restore")
      #expect(resync.params?["resync"] == true)
      #expect(resync.params?["value"] == state["value"])
      let rejected = await #expect(throws: ArborClientError.self) {
        try await client.call("state.restore", ["record": ["root": "Other"]])
      }
      #expect(rejected?.rpcError?.is(.snapshotRejected) == true)
    }
  }
}

extension ArborClientError {
  var rpcError: RPCError? {
    if case .daemon(let error) = self { return error }
    return nil
  }
}
