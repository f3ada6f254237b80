import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// `ArborClient`'s watches against the real daemon: every revision's value, checked
/// against the journal's own `state.at`; resuming across a `kill -9` with no revision lost
/// or repeated; a resync when the daemon lost what the watcher had seen.
@Suite(.startsProcesses) struct StateWatchTests {
  static let increment: JSONValue = ["target": "/counters/0/counter", "intent": "incrementTapped"]

  /// Random intents: add a row, count up or down in a row, remove a row.
  static func randomIntent(rows: Int, using generator: inout SeededRandomNumberGenerator) -> JSONValue {
    guard rows > 0 else { return ["intent": "addButtonTapped"] }
    let row = Int.random(in: 0..<rows, using: &generator)
    switch Int.random(in: 0..<10, using: &generator) {
    case 0, 1: return ["intent": "addButtonTapped"]
    case 2: return ["target": .string("/counters/\(row)"), "intent": "removeButtonTapped"]
    case 3, 4, 5: return ["target": .string("/counters/\(row)/counter"), "intent": "decrementTapped"]
    default: return ["target": .string("/counters/\(row)/counter"), "intent": "incrementTapped"]
    }
  }

  @Test func aWatchYieldsTheStateOfEveryRevisionAtRootAndAtAPath() async throws {
    try await withDaemon { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let client = ArborClient(socketPath: daemon.socket, reconnect: .never)
      let root = DeadlineIterator(client.watch())
      let first = try await root.next("the root's first value")
      #expect(first.kind == .initial)
      #expect(first.revision == 1)
      let counter = DeadlineIterator(client.watch("/counters/0/counter/count"))
      #expect(try await counter.next("the count's first value").value == 0)

      var generator = SeededRandomNumberGenerator(seed: 7)
      var rows = 1
      for _ in 0..<60 {
        let intent = Self.randomIntent(rows: rows, using: &generator)
        _ = try await driver.call("intent.call", intent)
        if intent["intent"] == "removeButtonTapped" {
          // The row sends an event, and its parent removes it in a task of its own: after
          // the reply, later on a loaded machine. The next intent may pick any row left,
          // so the count is read once the row has gone.
          let before = rows
          try await eventually("the removed row to go (\(before) rows before)") {
            try await driver.call("state.get", ["path": "/counters"])["value"]?.arrayValue?.count ?? 0 < before
          }
        }
        rows = try await driver.call("state.get", ["path": "/counters"])["value"]?.arrayValue?.count ?? 0
      }
      let last = try #require(try await driver.call("state.get")["revision"]?.intValue)
      // Every revision once, in order, each value the one the journal rebuilds.
      for revision in 2...UInt64(last) {
        let update = try await root.next("the root at revision \(revision)")
        #expect(update.revision == revision, "consecutive revisions")
        guard case .patch = update.kind else {
          Issue.record("revision \(revision) came as \(update.kind), not a patch")
          continue
        }
        let journal = try await driver.call("state.at", ["revision": .int(Int64(revision))])["value"]
        #expect(update.value == journal, "revision \(revision): the watched value is the journal's")
      }
      // The path watch: each of its values is the journal's at that revision (nothing when
      // the first row was gone). One more change to the first row's count ends it.
      if rows == 0 { try await driver.call("intent.call", ["intent": "addButtonTapped"]) }
      let final = try #require(try await driver.call("intent.call", Self.increment)["revision"]?.intValue)
      var latest: StateUpdate?
      while latest?.revision != UInt64(final) {
        let update = try await counter.next("the count's update up to revision \(final)")
        #expect(update.revision <= UInt64(final))
        let journal = try await driver.call("state.at", ["revision": .int(Int64(update.revision))])["value"]
        #expect(update.value == journal?["counters"]?[0]?["counter"]?["count"], "the count at revision \(update.revision)")
        latest = update
      }
      let now = try await driver.call("state.get", ["path": "/counters/0/counter/count"])["value"]
      #expect(latest?.value == now, "the count watch ends at the state's count")
    }
  }

  @Test func aWatchResumesAcrossAKillAndRestartWithNoRevisionLostOrRepeated() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always"]
    let client = ArborClient(socketPath: directory + "/d.sock", reconnect: .init(initialDelay: .milliseconds(20), giveUpAfter: .seconds(60)))
    let (events, eventsContinuation) = AsyncStream.makeStream(of: String.self)
    let connectionEvents = DeadlineIterator(events)
    let (updates, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, execution in
      // The first connection must succeed: the watch starts once the daemon listens.
      let updates = DeadlineIterator(client.watch { event in
        switch event {
        case .lost: eventsContinuation.yield("lost")
        case .subscribed(let revision): eventsContinuation.yield("subscribed \(revision)")
        }
      })
      let driver = try await daemon.connect()
      #expect(try await updates.next("the first value").revision == 0)
      #expect(try await connectionEvents.next("the first subscription") == "subscribed 0")
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<5 { try await driver.call("intent.call", Self.increment) }
      for revision in 1...6 { #expect(try await updates.next("revision \(revision)").revision == UInt64(revision)) }
      try execution.send(signal: .kill)
      return updates
    }
    #expect(try await connectionEvents.next("the loss") == "lost")
    try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
      let driver = try await daemon.connect()
      for _ in 0..<4 { try await driver.call("intent.call", Self.increment) }
      for revision in 7...10 {
        let update = try await updates.next("revision \(revision), after the restart")
        #expect(update.revision == UInt64(revision), "resumed with no gap and no repeat")
        #expect(update.kind != .resync, "a resume, not a resync")
      }
      var seen: [String] = []
      while seen.last?.hasPrefix("subscribed") != true { seen.append(try await connectionEvents.next("the new subscription")) }
      #expect(seen.last == "subscribed 6", "resumed from the last revision seen: \(seen)")
      let state = try await driver.call("state.get")
      let count = state["value"]?["counters"]?[0]?["counter"]?["count"]
      #expect(count == 9)
      _ = state
    }
  }

  @Test func aWatchWhoseRevisionsTheDaemonLostGetsAResync() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let client = ArborClient(socketPath: directory + "/d.sock", reconnect: .init(initialDelay: .milliseconds(20)))
    let (updates, _) = try await withDaemon(directory: directory) { daemon, _ in
      let updates = DeadlineIterator(client.watch("/counters"))
      let driver = try await daemon.connect()
      _ = try await updates.next("the first value")
      for _ in 0..<3 { try await driver.call("intent.call", ["intent": "addButtonTapped"]) }
      for revision in 1...3 { #expect(try await updates.next("revision \(revision)").revision == UInt64(revision)) }
      return updates
    }
    // The state is gone: the new daemon starts at revision 0, below what the watch saw.
    try FileManager.default.removeItem(atPath: directory + "/state")
    try await withDaemon(directory: directory) { daemon, _ in
      let update = try await updates.next("the value after the daemon lost its state")
      #expect(update.kind == .resync)
      #expect(update.revision == 0)
      #expect(update.value == [])
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let next = try await updates.next("revision 1 of the new state")
      #expect(next.revision == 1)
      #expect(next.value?.arrayValue?.count == 1)
    }
  }

  /// A daemon that lost its last revisions (killed before they reached the journal) numbers
  /// its next commits as the lost ones were numbered: a watch that saw the lost ones must
  /// not take the new ones' patches as following its value. Made deterministic here by
  /// putting back a copy of the state directory taken before the revisions that are "lost".
  @Test func aWatchWhoseLastRevisionsWereReplacedUnderTheSameNumbersGetsAResync() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let client = ArborClient(socketPath: directory + "/d.sock", reconnect: .init(initialDelay: .milliseconds(20), giveUpAfter: .seconds(60)))
    try await withDaemon(directory: directory) { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      try await driver.call("intent.call", Self.increment)
    }
    // What the journal holds at revision 2 (count 1), kept aside while the daemon is stopped.
    try FileManager.default.copyItem(atPath: directory + "/state", toPath: directory + "/state-at-2")
    let (updates, _) = try await withDaemon(directory: directory) { daemon, execution in
      let updates = DeadlineIterator(client.watch("/counters/0/counter/count"))
      #expect(try await updates.next("the first value").value == 1)
      let driver = try await daemon.connect()
      for _ in 0..<3 { try await driver.call("intent.call", Self.increment) }
      let seen = try await updates.next("revision 3").revision
      #expect(seen == 3)
      for revision in 4...5 { #expect(try await updates.next("revision \(revision)").revision == UInt64(revision)) }
      try execution.send(signal: .kill)
      return updates
    }
    // Revisions 3 to 5 (count 2, 3, 4) are lost: the daemon starts again at revision 2 and
    // commits other revisions 3 to 5 (count 0, -1, -2) before the watch comes back (on a
    // socket of its own, so that the watch cannot reconnect before they are made).
    let elsewhere = try DaemonHarness.temporaryDirectory()
    try FileManager.default.removeItem(atPath: directory + "/state")
    try FileManager.default.moveItem(atPath: directory + "/state-at-2", toPath: elsewhere + "/state")
    try await withDaemon(directory: elsewhere) { daemon, _ in
      let driver = try await daemon.connect()
      for _ in 0..<3 { try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "decrementTapped"]) }
    }
    try FileManager.default.moveItem(atPath: elsewhere + "/state", toPath: directory + "/state")
    try await withDaemon(directory: directory) { daemon, _ in
      let update = try await updates.next("the watch's first update after the restart")
      #expect(update.kind == .resync && update.revision == 5, "\(update)")
      #expect(update.value == -2, "the watch holds the daemon's value after the restart, not the lost one: \(update)")
      let driver = try await daemon.connect()
      try await driver.call("intent.call", Self.increment)
      let next = try await updates.next("revision 6")
      #expect(next.revision == 6 && next.value == -1, "\(next)")
      let state = try await driver.call("state.get", ["path": "/counters/0/counter/count"])
      #expect(state["value"] == next.value)
    }
  }

  @Test func aWatchFromAPastRevisionStartsWithTheValueThen() async throws {
    try await withDaemon { daemon, _ in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      for _ in 0..<4 { try await driver.call("intent.call", Self.increment) }
      let client = ArborClient(socketPath: daemon.socket, reconnect: .never)
      let updates = DeadlineIterator(client.watch("/counters/0/counter/count", since: 2))
      let first = try await updates.next("the count at revision 2")
      #expect(first.revision == 2)
      #expect(first.value == 1)
      for revision in 3...5 {
        let update = try await updates.next("revision \(revision)")
        #expect(update.revision == UInt64(revision))
        #expect(update.value == .int(Int64(revision - 1)))
      }
    }
  }

  @Test func aDaemonThatIsNotThereFailsTheWatchAtOnce() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let updates = DeadlineIterator(ArborClient(socketPath: directory + "/none.sock").watch())
    do {
      _ = try await updates.next("the watch's failure")
      Issue.record("a watch of a socket nobody listens on yielded a value")
    } catch let error as ArborClientError {
      guard case .cannotConnect(let path, _) = error else { throw error }
      #expect(path == directory + "/none.sock")
    }
  }

  @Test func eventWatchesDeliverTheEventsOfTheirTypes() async throws {
    try await withDaemon { daemon, _ in
      let driver = try await daemon.connect()
      for _ in 0..<2 { try await driver.call("intent.call", ["intent": "addButtonTapped"]) }
      let client = ArborClient(socketPath: daemon.socket, reconnect: .never)
      let (subscribed, continuation) = AsyncStream.makeStream(of: Void.self)
      let events = DeadlineIterator(client.events(types: ["CounterRowModel.Event"]) { event in
        if case .subscribed = event { continuation.yield() }
      })
      let waitForSubscription = Task { try await events.next("the first event") }
      _ = try await DeadlineIterator(subscribed).next("the event watch's subscription")
      try await driver.call("intent.call", ["target": "/counters/1", "intent": "removeButtonTapped"])
      let event = try await waitForSubscription.value
      #expect(event.type == "CounterRowModel.Event")
      #expect(event.sourcePath == "/counters/1")
      #expect(event.sourceType == "CounterRowModel")
      #expect(event.event == ["removeTapped": [:]])
      #expect(event.revision >= 2)
    }
  }

  @Test func aBatchAnswersEachCallInOrder() async throws {
    try await withDaemon { daemon, _ in
      let connection = try await daemon.connect()
      let outcomes = try await connection.batch([
        ("intent.call", ["intent": "addButtonTapped"]),
        ("state.get", ["path": "/counters/0/counter/count"]),
        ("no.such.method", nil),
        ("state.get", ["path": "/nothing"]),
      ])
      #expect(outcomes.count == 4)
      #expect(try outcomes[0].get()["revision"] == 1)
      #expect(try outcomes[1].get()["value"] == 0)
      guard case .failure(let missing) = outcomes[2], case .failure(let path) = outcomes[3] else {
        Issue.record("the unknown method and the bad path should fail: \(outcomes)")
        return
      }
      #expect(missing.code == -32601)
      #expect(path.is(.pathNotFound))
      // The connection goes on: a plain call after the batch.
      #expect(try await connection.call("state.get", ["path": "/counters/0/counter/count"])["value"] == 0)
    }
  }
}
