import ArborClient
import ArborDaemon
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import PostgresTestServer
import ProcessSlots
import Testing

/// counterfactd with its state in PostgreSQL (`--store`), started for real on a real
/// server: it keeps its state across a kill, a second daemon on the same database is
/// refused while the first leads and takes over once it is gone, and a wrong address stops
/// the start with what to do.
@Suite(.startsProcesses) struct PostgresStoreDaemonTests {
  @Test func aSecondDaemonFollowsAsAStandbyAndTakesOverWhenTheLeaderIsKilled() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let standbyDirectory = try DaemonHarness.temporaryDirectory()
    let (revision, status) = try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { leader, execution -> UInt64 in
      let writer = try await leader.connect()
      try await writer.call("intent.call", ["intent": "addButtonTapped"])
      try await writer.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      // The second daemon on the same database becomes the standby, in its own process.
      let (_, standbyStatus) = try await withDaemon(arguments: ["--store", address, "--no-forward-intents"], directory: standbyDirectory) {
        standby, _ in
        let reader = try await standby.connect()
        try await eventually("the standby to follow revision 2") { (try await reader.call("state.get"))["revision"] == 2 }
        let status = try await reader.call("daemon.status")
        #expect(status["journal"]?["lead"]?["standby"] == true, "\(status)")
        #expect(status["journal"]?["lead"]?["leader"]?.stringValue?.contains("pid \(leader.pid) on") == true, "\(status)")
        // Watches on the standby see the leader's revisions live, at the leader's numbers.
        let notifications = DeadlineIterator(reader.notifications.makeAsyncIterator())
        #expect(try await reader.call("state.watch", ["path": "/counters/0/counter/count"])["value"] == 1)
        try await writer.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        let live = try await notifications.next("revision 3 on the standby")
        #expect(live.params?["revision"] == 3)
        #expect(live.params?["patch"] == [["op": "replace", "path": "", "value": 2]])
        // Writes are refused there (forwarding is off), naming the leader.
        let refused = await #expect(throws: ArborClientError.self) {
          try await reader.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        }
        #expect(refused?.rpcError?.is(.notLeader) == true)
        #expect(refused?.rpcError?.message.contains("counterfactd (pid \(leader.pid) on") == true, "\(String(describing: refused))")
        // history.changes and state.at read the shared journal.
        let changes = try await reader.call("history.changes", ["since": 1])
        #expect(changes["changes"]?.arrayValue?.count == 2)
        #expect(try await reader.call("state.at", ["revision": 2, "path": "/counters/0/counter/count"])["value"] == 1)
      }
      #expect(standbyStatus == .exited(0), "a standby stops cleanly")
      try? execution.send(signal: .kill)
      return 3
    }
    #expect(status == .signaled(9))
    // The standby, started again, finds nobody leading and leads; the journal goes on.
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"], directory: standbyDirectory) { daemon, _ in
      let client = try await daemon.connect()
      let state = try await client.call("state.get", ["path": "/counters/0/counter/count"])
      #expect(state["value"] == 2)
      #expect(UInt64(state["revision"]?.intValue ?? -1) == revision)
      let reply = try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      #expect(UInt64(reply["revision"]?.intValue ?? -1) == revision + 1)
      let terms = try await PostgresTestServer.sql("SELECT string_agg(DISTINCT term::text, ',') FROM journal", on: address)
      #expect(terms == "1,2", "the first daemon wrote in term 1, the second in term 2")
    }
  }

  @Test func anIntentSentToAStandbyIsForwardedToTheLeaderAndAnsweredWithItsRevision() async throws {
    let address = try await PostgresTestServer.newDatabase()
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { leader, _ in
      let writer = try await leader.connect()
      try await writer.call("intent.call", ["intent": "addButtonTapped"])
      try await withDaemon(arguments: ["--store", address]) { standby, _ in
        let client = try await standby.connect()
        try await eventually("the standby to follow revision 1") { (try await client.call("state.get"))["revision"] == 1 }
        let reply = try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        #expect(reply["revision"] == 2, "the leader's revision")
        // The reply comes once the standby has the revision: a read after it sees the write.
        let read = try await client.call("state.get", ["path": "/counters/0/counter/count"])
        #expect(read["value"] == 1)
        #expect(read["revision"] == 2)
        #expect(try await writer.call("state.get", ["path": "/counters/0/counter/count"])["value"] == 1, "the leader ran it")
        // Many callers at once, in order per caller, each answered once.
        try await withThrowingTaskGroup(of: [Int64].self) { group in
          for _ in 0..<4 {
            group.addTask {
              let caller = try await standby.connect()
              var revisions: [Int64] = []
              for _ in 0..<10 {
                let reply = try await caller.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
                revisions.append(reply["revision"]?.intValue ?? -1)
              }
              return revisions
            }
          }
          var all: [Int64] = []
          for try await revisions in group {
            #expect(revisions == revisions.sorted(), "one caller's intents run in the order it sent them")
            all += revisions
          }
          #expect(Set(all).count == 40, "forty intents, forty revisions")
        }
        #expect(try await writer.call("state.get", ["path": "/counters/0/counter/count"])["value"] == 41)
        // The leader's errors come back as they are.
        let unknown = await #expect(throws: ArborClientError.self) {
          try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "nosuch"])
        }
        #expect(unknown?.rpcError?.is(.intentNotFound) == true, "\(String(describing: unknown))")
        let wrong = await #expect(throws: ArborClientError.self) {
          try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped", "params": ["extra": 1]])
        }
        #expect(wrong?.rpcError?.message.contains("incrementTapped has no parameter 'extra'") == true, "\(String(describing: wrong))")
        // A malformed call is refused on the standby, without a trip to the leader.
        let malformed = await #expect(throws: ArborClientError.self) { try await client.call("intent.call", ["target": 5]) }
        #expect(malformed?.rpcError?.code == -32602, "\(String(describing: malformed))")
      }
    }
  }

  /// The leader relays its models' events through the store: a standby's event watchers
  /// get the same events as the leader's, in the same order, filtered the same way,
  /// whether the intent that sent them was called on the leader or forwarded by the standby.
  @Test func aStandbysEventWatchersGetTheLeadersEventsInOrder() async throws {
    let address = try await PostgresTestServer.newDatabase()
    try await withDaemon(arguments: ["--store", address]) { leader, _ in
      let writer = try await leader.connect()
      for _ in 0..<6 { try await writer.call("intent.call", ["intent": "addButtonTapped"]) }
      try await withDaemon(arguments: ["--store", address]) { standby, _ in
        let forwarder = try await standby.connect()
        try await eventually("the standby to follow revision 6") { (try await forwarder.call("state.get"))["revision"] == 6 }
        // The same watches on both daemons: every event, and the row /counters/0's only.
        var watchers: [(all: DeadlineIterator<RPCRequest, Never>, row: DeadlineIterator<RPCRequest, Never>)] = []
        var connections: [ArborConnection] = []
        defer { for connection in connections { connection.close() } }
        for daemon in [leader, standby] {
          let all = try await daemon.connect()
          let row = try await daemon.connect()
          connections += [all, row]
          _ = try await all.call("events.watch")
          _ = try await row.call("events.watch", ["path": "/counters/0", "types": ["CounterRowModel.Event"]])
          watchers.append((DeadlineIterator(all.notifications.makeAsyncIterator()), DeadlineIterator(row.notifications.makeAsyncIterator())))
        }
        #expect(try await PostgresTestServer.sql("SELECT count(*) FROM events", on: address) == "0", "no event sent, none written")
        // Rows removed from the last, two through the leader, two forwarded by the standby;
        // then the first row.
        try await writer.call("intent.call", ["target": "/counters/5", "intent": "removeButtonTapped"])
        try await forwarder.call("intent.call", ["target": "/counters/4", "intent": "removeButtonTapped"])
        try await writer.call("intent.call", ["target": "/counters/3", "intent": "removeButtonTapped"])
        try await forwarder.call("intent.call", ["target": "/counters/2", "intent": "removeButtonTapped"])
        try await writer.call("intent.call", ["target": "/counters/0", "intent": "removeButtonTapped"])
        func events(_ iterator: DeadlineIterator<RPCRequest, Never>, count: Int, _ what: String) async throws -> [JSONValue] {
          var seen: [JSONValue] = []
          while seen.count < count {
            let notification = try await iterator.next(what)
            guard notification.method == "events.emitted", case .object(var params)? = notification.params else { continue }
            params["subscription"] = nil
            seen.append(.object(params))
          }
          return seen
        }
        let onLeader = try await events(watchers[0].all, count: 5, "the leader's five events")
        let onStandby = try await events(watchers[1].all, count: 5, "the standby's five events")
        #expect(onStandby == onLeader, "the standby's watcher gets the leader's events in order")
        #expect(onLeader.map { $0["source"]?["path"] } == ["/counters/5", "/counters/4", "/counters/3", "/counters/2", "/counters/0"])
        #expect(onLeader.first?["event"] == ["removeTapped": [:]])
        let rowOnLeader = try await events(watchers[0].row, count: 1, "the leader's event of /counters/0")
        let rowOnStandby = try await events(watchers[1].row, count: 1, "the standby's event of /counters/0")
        #expect(rowOnStandby == rowOnLeader)
        #expect(rowOnStandby.first?["source"]?["path"] == "/counters/0")
        let batches = Int(try await PostgresTestServer.sql("SELECT count(*) FROM events", on: address)) ?? 0
        #expect((1...5).contains(batches), "the five events in one to five batches: \(batches)")
      }
    }
  }

  /// The standby's reading of the leader's events once started at its first wake-up, when
  /// its own `LISTEN` connection was up: a watcher that subscribed as soon as the socket
  /// answered missed the events written before then (seen under load, where that
  /// connection is slow: here its wake-ups start 1.5 s late). Each standby is watched the
  /// moment it listens, and the leader's event follows at once.
  @Test func aWatcherOfAStandbyThatJustStartedGetsTheNextEvent() async throws {
    let address = try await PostgresTestServer.newDatabase()
    try await withDaemon(arguments: ["--store", address]) { leader, _ in
      let writer = try await leader.connect()
      for _ in 0..<3 { try await writer.call("intent.call", ["intent": "addButtonTapped"]) }
      for round in 0..<3 {
        try await withDaemon(arguments: ["--store", address], environment: ["ARBOR_TEST_LISTEN_DELAY_MS": "1500"]) { standby, _ in
          let watcher = try await standby.connect()
          defer { watcher.close() }
          let events = DeadlineIterator(watcher.notifications.makeAsyncIterator())
          _ = try await watcher.call("events.watch")
          try await writer.call("intent.call", ["target": "/counters/0", "intent": "removeButtonTapped"])
          let status = try await watcher.call("daemon.status")
          #expect(status["journal"]?["lead"]?["standby"] == true, "round \(round): the second daemon is a standby: \(status)")
          var event: RPCRequest
          repeat { event = try await events.next("round \(round): the standby's watcher to get the event sent once it listened") } while event.method != "events.emitted"
          #expect(event.params?["source"]?["path"] == "/counters/0", "round \(round): \(event)")
        }
        try await writer.call("intent.call", ["intent": "addButtonTapped"])
      }
    }
  }

  @Test func aClientOfBothSocketsCallsAndWatchesOnAcrossTheLeadersDeath() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let (leaderUp, up) = AsyncStream<(String, Int32)>.makeStream()
    let (killOrders, kill) = AsyncStream<Void>.makeStream()
    let leaderLaunch = Task {
      try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { leader, execution in
        try await leader.connect().call("intent.call", ["intent": "addButtonTapped"])
        up.yield((leader.socket, leader.pid))
        for await _ in killOrders { break }
        try? execution.send(signal: .kill)
      }
    }
    defer { leaderLaunch.cancel() }
    let (leaderSocket, _) = try await withDeadline("the leader to start") {
      for await started in leaderUp { return started }
      throw HarnessError("the leader did not start")
    }
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { standby, _ in
      let client = ArborClient(socketPaths: [leaderSocket, standby.socket])
      try await eventually("the standby to follow revision 1") { (try? await ArborClient(socketPath: standby.socket).call("state.get"))?["revision"] == 1 }
      let updates = DeadlineIterator(client.watch("/counters/0/counter/count").makeAsyncIterator())
      #expect(try await updates.next("the watch's first value").value == 0)
      try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      #expect(try await updates.next("the leader's revision 2").value == 1)
      kill.yield()
      _ = try await leaderLaunch.value
      // The next call goes to the other socket; it is accepted once the standby leads.
      try await eventually("a call through the client to be accepted after the leader's death", seconds: 10) {
        (try? await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])) != nil
      }
      // The watch moved to the other daemon and resumed with `since`: it sees the new write.
      var value: JSONValue?
      while value != 2 { value = try await updates.next("the watch to reach 2 on the other daemon").value }
      #expect(value == 2)
    }
  }

  @Test func aLeaderWhoseSessionEndedAndWhoseLeadWasTakenFollowsTheNewLeader() async throws {
    let address = try await PostgresTestServer.newDatabase()
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { first, _ in
      try await first.connect().call("intent.call", ["intent": "addButtonTapped"])
      try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { second, _ in
        try await eventually("the second daemon to follow revision 1") {
          (try? await ArborClient(socketPath: second.socket).call("state.get"))?["revision"] == 1
        }
        @Sendable func leads(_ daemon: DaemonUnderTest) async -> Bool {
          (try? await ArborClient(socketPath: daemon.socket).call("daemon.status"))?["journal"]?["lead"]?["standby"] == false
        }
        // The server ends the leader's session (as a cut network or a restart of the server
        // would); the standby, trying every 200 ms, takes the lead before the old leader's
        // check each second takes it back (tried again in the rare case it does not).
        for _ in 0..<5 where !(await leads(second)) {
          try await PostgresTestServer.sql(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
            on: address)
          // Up to 5 s for the second to lead; if the first took its lock back, again.
          let deadline = ContinuousClock.now + .seconds(5)
          while ContinuousClock.now < deadline, !(await leads(second)) { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(await leads(second), "the second daemon leads")
        let reply = try await ArborClient(socketPath: second.socket).call(
          "intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        let revision = try #require(reply["revision"]?.intValue)
        // The first finds the lead gone, and follows the second from then on.
        try await eventually("the first daemon to follow the second as a standby", seconds: 40) {
          guard let status = try? await ArborClient(socketPath: first.socket).call("daemon.status") else { return false }
          return status["journal"]?["lead"]?["standby"] == true && (status["revision"]?.intValue ?? 0) >= revision
        }
        let value = try await ArborClient(socketPath: first.socket).call("state.get", ["path": "/counters/0/counter/count"])
        #expect(value["value"] == 1)
        #expect(first.log.contains("this daemon no longer leads"), "\(first.log)")
      }
    }
  }

  @Test func aLeaderCutOffFromTheServerAcknowledgesNothingStepsDownAndFollowsTheNewLeader() async throws {
    let address = try await PostgresTestServer.newDatabase()
    // The first daemon reaches the server over TCP through a link the test can cut.
    let (link, throughLink) = try await CuttableLink.toDatabase(at: address)
    try await withDaemon(arguments: ["--store", throughLink, "--fsync", "always"]) { first, _ in
      let writer = ArborClient(socketPath: first.socket)
      try await writer.call("intent.call", ["intent": "addButtonTapped"])
      try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { second, _ in
        try await eventually("the second daemon to follow revision 1") {
          (try? await ArborClient(socketPath: second.socket).call("state.get"))?["revision"] == 1
        }
        link.cut()
        // A write on the cut-off leader cannot be kept: it is not acknowledged.
        let pending = Task { try? await writer.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
        try await Task.sleep(for: .milliseconds(500))
        // The server notices the leader is gone (its keepalives would): the lead is free.
        link.serverNotices()
        do {
          try await eventually("the second daemon to lead", seconds: 15) {
            (try? await ArborClient(socketPath: second.socket).call("daemon.status"))?["journal"]?["lead"]?["standby"] == false
          }
        } catch {
          let locks = (try? await PostgresTestServer.sql(
            "SELECT a.pid, a.backend_start, a.state, a.wait_event_type, a.wait_event, (SELECT string_agg(l.locktype || ':' || l.mode || ':' || l.granted, ',') FROM pg_locks l WHERE l.pid = a.pid), left(a.query, 60) FROM pg_stat_activity a WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()",
            on: address)) ?? "?"
          throw HarnessError("\(error)\nthe advisory locks: \(locks)\nthe first daemon's log:\n\(first.log)\nthe second's:\n\(second.log)")
        }
        let reply = try await ArborClient(socketPath: second.socket).call(
          "intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        let revision = try #require(reply["revision"]?.intValue)
        #expect(revision == 2, "the new leader goes on from the last revision kept")
        let unacknowledged = await pending.value
        #expect(unacknowledged == nil, "the cut-off leader acknowledged a write it could not keep: \(String(describing: unacknowledged))")
        // The link comes back: the first finds the lead taken and follows the second.
        link.restore()
        try await eventually("the first daemon to follow the second as a standby", seconds: 40) {
          guard let status = try? await ArborClient(socketPath: first.socket).call("daemon.status") else { return false }
          return status["journal"]?["lead"]?["standby"] == true && (status["revision"]?.intValue ?? 0) >= revision
        }
        let count = try await ArborClient(socketPath: first.socket).call("state.get", ["path": "/counters/0/counter/count"])
        #expect(count["value"] == 1, "the first daemon's state is the new leader's, without its own unkept write")
        let terms = try await PostgresTestServer.sql("SELECT string_agg(revision || ':' || term, ',' ORDER BY revision) FROM journal", on: address)
        #expect(terms == "1:1,2:2", "\(terms)")
      }
    }
  }

  @Test func aStandbyTakesOverWithinAMomentAndItsWatchersResumeWithSince() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let (leaderUp, up) = AsyncStream<Void>.makeStream()
    let (killOrders, kill) = AsyncStream<Void>.makeStream()
    let leaderLaunch = Task {
      try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { leader, execution in
        let writer = try await leader.connect()
        try await writer.call("intent.call", ["intent": "addButtonTapped"])
        up.yield()
        // Held until the standby follows, then killed.
        for await _ in killOrders { break }
        try? execution.send(signal: .kill)
      }
    }
    defer { leaderLaunch.cancel() }
    try await withDeadline("the leader to start") { for await _ in leaderUp { break } }
    try await withDaemon(arguments: ["--store", address, "--fsync", "always"]) { standby, _ in
      let reader = try await standby.connect()
      try await eventually("the standby to follow revision 1") { (try? await reader.call("state.get"))?["revision"] == 1 }
      kill.yield()
      _ = try await leaderLaunch.value
      let killed = ContinuousClock.now
      // The standby's own connections are closed when it takes over; a new one finds the leader.
      try await eventually("the standby to take the lead", seconds: 10) {
        guard let client = try? await standby.connect() else { return false }
        defer { client.close() }
        return (try? await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])) != nil
      }
      let took = ContinuousClock.now - killed
      print("takeover: an intent accepted by the standby \(took.formatted(.units(allowed: [.milliseconds]))) after the leader was killed")
      #expect(took < .seconds(5))
      let client = try await standby.connect()
      let notifications = DeadlineIterator(client.notifications.makeAsyncIterator())
      let resumed = try await client.call("state.watch", ["since": 1])
      #expect(resumed["revision"] == 1)
      let replayed = try await notifications.next("revision 2, written by the new leader")
      #expect(replayed.params?["revision"] == 2)
      #expect(replayed.params?["patch"] == [["op": "replace", "path": "/counters/0/counter/count", "value": 1]])
    }
  }

  @Test func aWrongAddressOrAServerThatCannotBeReachedStopsTheStartWithWhatToDo() async throws {
    let (tls, tlsOutcome) = try await runDaemonToExit(["--store", "postgres://db.example/arbor?sslmode=require"])
    #expect(!tlsOutcome.isSuccess)
    #expect(tls.contains("cannot start: --store sslmode=require is not supported"), "\(tls)")
    let (unknown, unknownOutcome) = try await runDaemonToExit(["--store", "postgres://db.example/arbor?pool=3"])
    #expect(!unknownOutcome.isSuccess)
    #expect(unknown.contains("the parameter pool is not understood"), "\(unknown)")
    let (gone, goneOutcome) = try await runDaemonToExit(["--store", "postgresql:///arbor?host=/nonexistent-directory"])
    #expect(!goneOutcome.isSuccess)
    #expect(gone.contains("cannot start from postgresql://"), "\(gone)")
    #expect(gone.contains("is the server running, and is --store's address right?"), "\(gone)")
    let server = try await PostgresTestServer.server()
    let missing = PostgresTestServer.address(directory: server.directory, port: server.port, database: "no_such_database")
    let (absent, absentOutcome) = try await runDaemonToExit(["--store", missing])
    #expect(!absentOutcome.isSuccess)
    #expect(absent.contains("database \"no_such_database\" does not exist: create the database first (createdb)"), "\(absent)")
  }
}
