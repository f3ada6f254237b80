import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

/// The methods that read the journal, on the real daemon: `state.watch` with `since`
/// resuming across a restart, `state.at` inside and outside the window, `history.changes`
/// page by page, and the journal's figures in `daemon.status`.
@Suite(.startsProcesses) struct JournalMethodsTests {
  static let increment: JSONValue = ["target": "/counters/0/counter", "intent": "incrementTapped"]

  @Test(arguments: ["SIGTERM", "SIGKILL"])
  func aWatcherResumesAcrossARestartSeeingEveryRevisionOnce(stop: String) async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always"]
    // Before the restart: revisions 1…12. The watcher saw up to revision 4.
    try await withDaemon(arguments: arguments, directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      for _ in 0..<2 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      for _ in 0..<10 { try await client.call("intent.call", Self.increment) }
      #expect(try await client.call("state.get")["revision"] == 12)
      if stop == "SIGKILL" { try execution.send(signal: .kill) }
    }
    try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
      let driver = try await daemon.connect()
      // Revisions 13…15 after the restart, before the watcher comes back.
      for _ in 0..<3 { try await driver.call("intent.call", ["target": "/counters/1/counter", "intent": "incrementTapped"]) }
      let watcher = try await daemon.connect()
      let notifications = DeadlineIterator(watcher.notifications.makeAsyncIterator())
      let reply = try await watcher.call("state.watch", ["since": 4])
      #expect(reply["revision"] == 4)
      var state = try #require(try await watcher.call("state.at", ["revision": 4])["value"])
      // A watch of one counter from revision 4 too: its patches are relative to it.
      let pathWatcher = try await daemon.connect()
      let pathNotifications = DeadlineIterator(pathWatcher.notifications.makeAsyncIterator())
      let counter = "/counters/0/counter"
      #expect(try await pathWatcher.call("state.watch", ["since": 4, "path": .string(counter)])["revision"] == 4)
      var counterState = try #require(try await pathWatcher.call("state.at", ["revision": 4, "path": .string(counter)])["value"])
      // Then revisions 16 and 17, live.
      for _ in 0..<2 { try await driver.call("intent.call", Self.increment) }
      for revision in 5...17 {
        let notification = try await notifications.next("revision \(revision) (of 5…17)")
        #expect(notification.method == "state.changed")
        #expect(notification.params?["revision"] == .int(Int64(revision)), "each revision once, in order")
        let patch = try JSONValueDecoder().decode(JSONPatch.self, from: notification.params?["patch"] ?? .null)
        state = try patch.apply(to: state)
      }
      let current = try await driver.call("state.get")
      #expect(current["revision"] == 17)
      #expect(state == current["value"], "the patches from revision 4 reproduce the state")
      // The counter changed at revisions 5…12 and 16, 17; 13…15 changed the other one.
      for revision in [5, 6, 7, 8, 9, 10, 11, 12, 16, 17] {
        let notification = try await pathNotifications.next("the counter's revision \(revision)")
        #expect(notification.params?["revision"] == .int(Int64(revision)))
        let patch = try JSONValueDecoder().decode(JSONPatch.self, from: notification.params?["patch"] ?? .null)
        counterState = try patch.apply(to: counterState)
      }
      #expect(counterState == current["value"]?["counters"]?[0]?["counter"], "relative patches reproduce the counter")
    }
  }

  @Test func stateAtReadsEveryRevisionOfTheWindow() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      // Revision r ≥ 1 has count r - 1.
      for _ in 0..<9 { try await client.call("intent.call", Self.increment) }
      for revision in 1...10 {
        let past = try await client.call("state.at", ["revision": .int(Int64(revision)), "path": "/counters/0/counter/count"])
        #expect(past["revision"] == .int(Int64(revision)))
        #expect(past["value"] == .int(Int64(revision - 1)), "state.at \(revision)")
      }
      let whole = try await client.call("state.at", ["revision": 0])
      #expect(whole["value"]?["counters"] == [], "revision 0: the fresh tree")
    }
  }

  @Test func stateAtRefusesRevisionsOlderThanTheWindow() async throws {
    try await withDaemon(arguments: ["--history", "5", "--snapshot-every", "5"]) { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      // Enough revisions for compaction to drop revision 1 from the window.
      try await eventually("the journal to be compacted past revision 1", seconds: 20) {
        for _ in 0..<5 { try await client.call("intent.call", Self.increment) }
        let journal = try await client.call("daemon.status")["journal"]
        return (journal?["oldestRevision"]?.intValue ?? 0) > 1
      }
      // No more changes: once no compaction is due (fewer than --snapshot-every revisions
      // since the last snapshot), none runs, and the window stays put.
      try await eventually("no compaction to be due", seconds: 20) {
        let status = try await client.call("daemon.status")
        let snapshot = status["journal"]?["snapshotRevision"]?.intValue ?? 0
        return (status["revision"]?.intValue ?? 0) - snapshot < 5
      }
      let status = try await client.call("daemon.status")
      let oldest = try #require(status["journal"]?["oldestRevision"]?.intValue)
      let revision = try #require(status["revision"]?.intValue)
      #expect(revision - oldest >= 5, "the window of --history 5 is kept")
      let inside = try await client.call("state.at", ["revision": .int(oldest), "path": "/counters/0/counter/count"])
      #expect(inside["value"] == .int(oldest - 1))
      let compacted = await #expect(throws: ArborClientError.self) { try await client.call("state.at", ["revision": 1]) }
      #expect(compacted?.rpcError?.is(.revisionCompacted) == true)
      #expect(compacted?.rpcError?.data?["oldest"] == .int(oldest))
      let future = await #expect(throws: ArborClientError.self) { try await client.call("state.at", ["revision": .int(revision + 10)]) }
      #expect(future?.rpcError?.code == -32602)
      #expect(future?.rpcError?.message.contains("but the tree is at revision") == true)
      let missing = await #expect(throws: ArborClientError.self) { try await client.call("state.at", ["revision": .int(oldest), "path": "/nothing"]) }
      #expect(missing?.rpcError?.is(.pathNotFound) == true)
      let noRevision = await #expect(throws: ArborClientError.self) { try await client.call("state.at", ["path": ""]) }
      #expect(noRevision?.rpcError?.message.contains("revision") == true)
      // A watch from before the window is refused the same way.
      let watch = await #expect(throws: ArborClientError.self) { try await client.call("state.watch", ["since": 1]) }
      #expect(watch?.rpcError?.is(.revisionCompacted) == true)
    }
  }

  @Test func historyChangesPagesThroughTheJournal() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<24 { try await client.call("intent.call", Self.increment) }
      var revisions: [Int64] = []
      var cursor: JSONValue = 0
      var pages = 0
      while cursor != .null {
        let page = try await client.call("history.changes", ["since": cursor, "limit": 10])
        guard case .array(let changes)? = page["changes"] else { Issue.record("no changes: \(page)"); return }
        #expect(changes.count <= 10)
        revisions += changes.compactMap { $0["revision"]?.intValue }
        cursor = page["next"] ?? .null
        pages += 1
        #expect(pages <= 3, "25 revisions are 3 pages of 10")
        if pages > 3 { break }
      }
      #expect(revisions == Array(1...25))
      let one = try await client.call("history.changes", ["since": 4, "limit": 1])
      let change = try #require(one["changes"]?[0])
      #expect(change["revision"] == 5)
      #expect(change["intent"] == "incrementTapped")
      #expect(change["target"] == "/counters/0/counter")
      #expect(change["patch"] == [["op": "replace", "path": "/counters/0/counter/count", "value": 4]])
      #expect(change["time"]?.stringValue?.contains("T") == true, "an ISO 8601 time")
      #expect(one["next"] == 5)
      let first = try await client.call("history.changes", ["since": 0, "limit": 1])
      #expect(first["changes"]?[0]?["intent"] == "addButtonTapped")
      let badLimit = await #expect(throws: ArborClientError.self) { try await client.call("history.changes", ["limit": 0]) }
      #expect(badLimit?.rpcError?.message.contains("between 1 and 10000") == true)
      let badSince = await #expect(throws: ArborClientError.self) { try await client.call("history.changes", ["since": "yesterday"]) }
      #expect(badSince?.rpcError?.code == -32602)
    }
  }

  @Test func aRestoredTreeIsWhatAStartAfterAKillFinds() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always"]
    let (expected, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, execution -> JSONValue in
      let client = try await daemon.connect()
      for _ in 0..<2 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      let record = try await client.call("state.snapshot")
      for _ in 0..<3 { try await client.call("intent.call", Self.increment) }
      let restored = try await client.call("state.restore", ["record": record])
      #expect(restored["revision"] == 6, "above every revision served")
      // After the restore, the journal goes on from the restored tree.
      try await client.call("intent.call", ["target": "/counters/1/counter", "intent": "incrementTapped"])
      let state = try await client.call("state.get")
      #expect(state["revision"] == 7)
      #expect(state["value"]?["counters"]?[0]?["counter"]?["count"] == 0, "the restore undid the increments")
      try execution.send(signal: .kill)
      return state
    }
    try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      #expect(try await client.call("state.get") == expected, "the restored tree and the revision after it survive a kill")
      let history = try await client.call("history.changes", ["since": 5])
      #expect(history["changes"]?[0]?["revision"] == 7, "revision 6, the restore, is a snapshot; 7 follows it")
    }
  }

  @Test func statusReportsTheJournal() async throws {
    try await withDaemon(arguments: ["--fsync", "always"]) { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let journal = try #require(try await client.call("daemon.status")["journal"])
      #expect(journal["fsync"] == "always")
      #expect(journal["file"] == .string(daemon.stateDirectory + "/arbor.sqlite"))
      #expect(journal["writtenRevision"] == 1, "under always, the reply came after the write")
      #expect(journal["lag"] == 0)
      #expect(journal["oldestRevision"] == 0)
      #expect((journal["bytes"]?.intValue ?? 0) > 0)
    }
  }
}
