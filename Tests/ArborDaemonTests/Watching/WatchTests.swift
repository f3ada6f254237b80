import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Watches of a real `counterfactd`: exact patches, resume, and slow consumers.
@Suite(.startsProcesses) struct WatchTests {
  /// An independent client in Python drives random intents on one connection and watches
  /// on another (the root and a path), applying every patch with Python's `jsonpatch`;
  /// at the end what it holds must be exactly what `state.get` returns.
  @Test func pythonJSONPatchReproducesTheStateFromEveryWatch() async throws {
    let steps = Int(ProcessInfo.processInfo.environment["ARBOR_E2E_STEPS"] ?? "") ?? 300
    let seed = UInt64(ProcessInfo.processInfo.environment["ARBOR_E2E_SEED"] ?? "") ?? UInt64.random(in: 1...1_000_000)
    try await withDaemon { daemon, _ in
      let socket = daemon.socket
      let result = try await withDeadline("the Python watcher to finish \(steps) steps", seconds: 300) {
        try await run(
          .name("python3"), arguments: ["-c", pythonWatcher, socket, String(steps), String(seed)],
          output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
      }
      #expect(
        result.terminationStatus == .exited(0),
        "seed \(seed): \(result.standardOutput)\(result.standardError)\n\(daemon.log)")
      #expect(result.standardOutput.hasPrefix("ok "), "\(result.standardOutput)")
    }
  }

  @Test func sinceReplaysTheKeptRevisionsAndRefusesOlderOnes() async throws {
    try await withDaemon(arguments: ["--history", "5"]) { daemon, _ in
      let driver = try await daemon.connect()
      for _ in 0..<3 { try await driver.call("intent.call", ["intent": "addButtonTapped"]) }
      let watcher = try await daemon.connect()
      let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
      let reply = try await watcher.call("state.watch", ["since": 1])
      #expect(reply["revision"] == 1)
      #expect(reply["value"] == nil)
      for revision in 2...3 {
        let replayed = try await notifications.next("the replay of revision \(revision)")
        #expect(replayed.params?["revision"] == .int(Int64(revision)))
      }
      try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      let live = try await notifications.next("revision 4, live")
      #expect(live.params?["revision"] == 4)
      #expect(live.params?["patch"] == [["op": "replace", "path": "/counters/0/counter/count", "value": 1]])

      // Older than the hub's history: read back from the journal (JournalMethodsTests
      // shows the refusal once the journal is compacted too).
      for _ in 0..<10 { try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
      let again = try await daemon.connect()
      let replays = DeadlineIterator(again.notifications.makeAsyncIterator())
      #expect(try await again.call("state.watch", ["since": 2])["revision"] == 2)
      for revision in 3...14 {
        let replayed = try await replays.next("revision \(revision) from the journal and the history")
        #expect(replayed.params?["revision"] == .int(Int64(revision)))
      }
      let future = await #expect(throws: ArborClientError.self) { try await watcher.call("state.watch", ["since": 99]) }
      #expect(future?.rpcError?.code == -32602)
    }
  }

  /// The hub keeps the last `--history` revisions in a ring buffer: once it has wrapped
  /// around several times, a watch from any `since` it still holds gets exactly the
  /// revisions after it, oldest first, then the live ones.
  @Test func sinceReplaysInOrderOnceTheHistoryHasWrapped() async throws {
    try await withDaemon(arguments: ["--history", "4"]) { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      // Revisions 2…11, each setting the count to its revision minus one; the hub keeps 8…11.
      for _ in 2...11 { try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
      var watchers: [(since: Int64, connection: ArborConnection, notifications: DeadlineIterator<RPCRequest, Never>)] = []
      // 7 is the oldest `since` the hub serves from its own history; older ones go to the journal.
      for since: Int64 in [7, 9, 11] {
        let watcher = try await daemon.connect()
        let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
        let reply = try await watcher.call("state.watch", ["since": .int(since)])
        #expect(reply["revision"] == .int(since))
        for revision in Int64(since + 1)..<12 {
          let replayed = try await notifications.next("the replay of revision \(revision) to the watch from \(since)")
          #expect(replayed.params?["revision"] == .int(revision), "the watch from \(since)")
          #expect(replayed.params?["patch"] == [["op": "replace", "path": "/counters/0/counter/count", "value": .int(revision - 1)]])
        }
        watchers.append((since, watcher, notifications))
      }
      try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      for watcher in watchers {
        let live = try await watcher.notifications.next("revision 12, live, to the watch from \(watcher.since)")
        #expect(live.params?["revision"] == 12, "the watch from \(watcher.since)")
      }
    }
  }

  @Test func aPathWatchGetsRelativePatchesAndLearnsWhenItsPathGoes() async throws {
    try await withDaemon { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let watcher = try await daemon.connect()
      let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
      let reply = try await watcher.call("state.watch", ["path": "/counters/1/counter"])
      #expect(reply["value"]?["count"] == 0)
      try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      try await driver.call("intent.call", ["target": "/counters/1/counter", "intent": "decrementTapped"])
      let relative = try await notifications.next("the decrement of the watched counter")
      #expect(relative.params?["patch"] == [["op": "replace", "path": "/count", "value": -1]], "the other counter's change is not sent")
      try await driver.call("intent.call", ["target": "/counters/1", "intent": "removeButtonTapped"])
      let gone = try await notifications.next("the removal of the watched counter")
      #expect(gone.params?["exists"] == false)
      let missing = await #expect(throws: ArborClientError.self) { try await watcher.call("state.watch", ["path": "/counters/7"]) }
      #expect(missing?.rpcError?.is(.pathNotFound) == true)
    }
  }

  @Test func eventWatchesGetTheCodableEventsAndCancelStopsThem() async throws {
    try await withDaemon { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let watcher = try await daemon.connect()
      let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
      let reply = try await watcher.call("events.watch", ["types": ["CounterRowModel.Event"]])
      guard case .int(let subscription)? = reply["subscription"] else { Issue.record("no subscription"); return }
      try await driver.call("intent.call", ["target": "/counters/1", "intent": "removeButtonTapped"])
      let event = try await notifications.next("the row's removeTapped event")
      #expect(event.method == "events.emitted")
      #expect(event.params?["type"] == "CounterRowModel.Event")
      #expect(event.params?["event"] == ["removeTapped": [:]])
      #expect(event.params?["source"]?["path"] == "/counters/1")
      let cancelled = try await watcher.call("watch.cancel", ["subscription": .int(subscription)])
      #expect(cancelled["cancelled"] == true)
      let again = await #expect(throws: ArborClientError.self) {
        try await watcher.call("watch.cancel", ["subscription": .int(subscription)])
      }
      #expect(again?.rpcError?.is(.subscriptionNotFound) == true)
    }
  }

  /// A watcher that never reads costs the daemon a bounded amount: its notifications are
  /// coalesced into one resync, others are served meanwhile, and when it reads again it
  /// gets a value from which the patches continue exactly.
  @Test func aSlowWatcherIsCoalescedWhileOthersAreServed() async throws {
    try await withDaemon(arguments: ["--watch-queue", "8"]) { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let slow = try RawSocket(path: daemon.socket, receiveBuffer: 4_096)
      slow.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch"}"# + "\n")
      let memoryBefore = daemon.residentKilobytes()
      let intents = 4_000
      let started = ContinuousClock.now
      for _ in 0..<intents {
        try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      }
      let elapsed = ContinuousClock.now - started
      let memoryAfter = daemon.residentKilobytes()
      #expect(elapsed < .seconds(120), "\(intents) intents took \(elapsed) with a stuck watcher")
      #expect(memoryAfter - memoryBefore < 64 * 1024, "resident memory grew from \(memoryBefore) kB to \(memoryAfter) kB")
      let final = try await driver.call("state.get")

      // Now read everything the slow watcher was sent and replay it.
      guard case .int(let target)? = final["revision"] else { Issue.record("no revision in \(final)"); return }
      let (document, resyncs) = try await withDeadline("the slow watcher to catch up to revision \(target)", seconds: 60) {
        var framer = LineFramer(maxLineLength: 1 << 24)
        var document: JSONValue = .null
        var revision: Int64 = -1
        var resyncs = 0
        while revision != target {
          let received = slow.readAvailable()
          if received.isEmpty {
            await slow.waitUntilReadable()
            continue
          }
          framer.append(received)
          while let line = try framer.nextLine() {
            let message = try JSONValue(parsing: line)
            if let result = message["result"] {
              document = result["value"] ?? .null
              if case .int(let r)? = result["revision"] { revision = r }
              continue
            }
            guard let params = message["params"], case .int(let r)? = params["revision"] else { continue }
            if params["resync"] == true {
              resyncs += 1
              document = params["value"] ?? .null
            } else {
              #expect(r == revision + 1, "revision \(r) follows \(revision)")
              let patch = try JSONValueDecoder().decode(JSONPatch.self, from: params["patch"] ?? [])
              document = try patch.apply(to: document)
            }
            revision = r
          }
        }
        return (document, resyncs)
      }
      #expect(resyncs >= 1, "the watcher fell behind by thousands of revisions and was coalesced")
      #expect(document == final["value"])
    }
  }
}

/// The independent watcher: Python, the standard library's socket and json, and `jsonpatch`.
let pythonWatcher = #"""
import json, random, socket, sys
import jsonpatch

path, steps, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)

class Connection:
    def __init__(self):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.file = self.sock.makefile("rwb")
        self.next_id = 1
        self.pending = []
    def call(self, method, params=None):
        ident = self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": ident, "method": method}
        if params is not None:
            message["params"] = params
        self.file.write((json.dumps(message) + "\n").encode())
        self.file.flush()
        while True:
            reply = json.loads(self.file.readline())
            if reply.get("id") == ident:
                if "error" in reply:
                    raise SystemExit("%s failed: %s" % (method, json.dumps(reply["error"])))
                return reply["result"]
            self.pending.append(reply)
    def notification(self):
        if self.pending:
            return self.pending.pop(0)
        line = self.file.readline()
        if not line:
            raise SystemExit("the watch connection closed")
        return json.loads(line)

driver, watcher = Connection(), Connection()
driver.call("intent.call", {"intent": "addButtonTapped"})
root = watcher.call("state.watch")
rows = watcher.call("state.watch", {"path": "/counters"})
first = watcher.call("state.watch", {"path": "/counters/0/counter"})
views = {root["subscription"]: [root["value"], root["revision"], ""],
         rows["subscription"]: [rows["value"], rows["revision"], "/counters"],
         first["subscription"]: [first["value"], first["revision"], "/counters/0/counter"]}

for step in range(steps):
    counters = driver.call("state.get", {"path": "/counters"})["value"]
    choice = rng.random()
    if not counters or choice < 0.25:
        driver.call("intent.call", {"intent": "addButtonTapped"})
    elif choice < 0.35:
        # The row sends an event and the app removes it, after the reply: wait for that.
        driver.call("intent.call", {"target": "/counters/%d" % rng.randrange(len(counters)), "intent": "removeButtonTapped"})
        for _ in range(10000):
            if len(driver.call("state.get", {"path": "/counters"})["value"]) < len(counters):
                break
        else:
            raise SystemExit("the row's removal never happened")
    elif choice < 0.42:
        row = rng.choice(counters)
        driver.call("intent.call", {"intent": "removeButtonTapped", "params": {"id": row["id"]}})
    else:
        index = rng.randrange(len(counters))
        intent = rng.choice(["incrementTapped", "decrementTapped", "alertDismissed"])
        driver.call("intent.call", {"target": "/counters/%d/counter" % index, "intent": intent})

final = driver.call("state.get")
target = final["revision"]
resyncs = 0

def apply(note):
    global resyncs
    params = note["params"]
    view = views[params["subscription"]]
    if params.get("resync"):
        resyncs += 1
        view[0] = params["value"]
    else:
        if view[2] == "" and params["revision"] != view[1] + 1:
            raise SystemExit("the root watch skipped from %d to %d" % (view[1], params["revision"]))
        view[0] = jsonpatch.apply_patch(view[0], params["patch"])
    view[1] = params["revision"]

while views[root["subscription"]][1] < target:
    apply(watcher.notification())
# Everything queued for the path watches up to the target is queued before this reply.
watcher.call("daemon.status")
while watcher.pending:
    apply(watcher.pending.pop(0))

if views[root["subscription"]][0] != final["value"]:
    raise SystemExit("root: jsonpatch gives %s, state.get has %s" % (json.dumps(views[root["subscription"]][0]), json.dumps(final["value"])))
# The path watches have seen every revision that touched their paths by now; flush
# whatever is still buffered for them up to the target revision.
for sub, (value, revision, at) in views.items():
    if at == "":
        continue
    expected = final["value"]
    exists = True
    for token in at.strip("/").split("/"):
        if isinstance(expected, list):
            index = int(token)
            if index >= len(expected):
                exists = False
                break
            expected = expected[index]
        else:
            if token not in expected:
                exists = False
                break
            expected = expected[token]
    if not exists:
        expected = None
    if value != expected:
        raise SystemExit("%s: jsonpatch gives %s, state.get has %s" % (at, json.dumps(value), json.dumps(expected)))
print("ok %d revisions, %d resyncs" % (target, resyncs))
"""#
