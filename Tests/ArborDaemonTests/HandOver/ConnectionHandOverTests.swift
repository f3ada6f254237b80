import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Connections kept across a restart: under a service manager that keeps descriptors
/// (`$FDSTORE`), the daemon stores each client's socket at stop with its watches and what
/// it had sent but not finished (`connection-N`, `handover`), and the next process serves
/// the same sockets. The test plays the service manager: its notify socket takes the
/// descriptors, lets go of those the next process says it took (`FDSTOREREMOVE=1`), and it
/// starts the next process with what it keeps, as systemd passes them.
@Suite(.startsProcesses, .serialized) struct ConnectionHandOverTests {
  static let addButton = #"{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#

  @Test func aWatcherAndAClientKeepTheirConnectionsAcrossARestart() async throws {
    let (notify, daemon) = try await Self.startedUnderAStore()
    defer { notify.close() }
    defer { daemon.kill() }

    let (watcher, subscription, caller) = try await Self.watcherAndCaller(on: daemon.socket)

    // Half a request before the stop; the rest while no process runs.
    caller.sendPart(#"{"jsonrpc":"2.0","id":3,"method":"intent.call","par"#)
    try await Task.sleep(for: .milliseconds(100))
    let firstProcess = daemon.processID
    try await daemon.terminate()
    let stored = notify.storedDescriptors
    #expect(stored.filter { $0.name.hasPrefix("connection-") }.count == 2, "\(stored.map(\.name))")
    #expect(stored.contains { $0.name == "handover" }, "\(stored.map(\.name))\n\(daemon.log)")
    // The stop wrote the journal and saved no snapshot, and its models were not deactivated:
    // they go on in the next process, which replays the journal after the last snapshot.
    #expect(daemon.log.contains("journalled revision 1 to"), "\(daemon.log)")
    #expect(!daemon.log.contains("saved revision 1 to"), "\(daemon.log)")
    #expect(daemon.log.contains("exiting without deactivating the AppModel tree"), "\(daemon.log)")
    caller.send(#"ams":{"intent":"addButtonTapped"}}"#)

    try await daemon.start(passingAll: stored)
    #expect(daemon.processID != firstProcess)
    #expect(daemon.log.contains("the snapshot of revision 0 and 1 journalled revisions"), "\(daemon.log)")
    let reply = try await caller.message("the reply of the next process to the request sent across the restart")
    #expect(reply["id"] == 3 && reply["result"]?["revision"] == 2, "\(reply)")
    let second = try await watcher.message("the change the next process made")
    #expect(second["method"] == "state.changed", "\(second)")
    #expect(second["params"]?["subscription"]?.intValue == subscription, "the same subscription goes on: \(second)")
    #expect(second["params"]?["revision"] == 2 && second["params"]?["resync"] == nil, "the next revision, as a patch: \(second)")
    // A new watch takes a number after the handed-over one.
    watcher.send(#"{"jsonrpc":"2.0","id":4,"method":"state.watch","params":{"path":"/counters"}}"#)
    let another = try await watcher.message("the reply to a second state.watch")
    #expect((another["result"]?["subscription"]?.intValue ?? 0) > subscription, "\(another)")
    // The store let go of what the next process took.
    try await eventually("the store to keep only the socket: \(notify.storedDescriptors.map(\.name))") {
      notify.storedDescriptors.map(\.name) == ["socket"]
    }
    #expect(daemon.log.contains("took over 2 connections at revision 1 (generation 1)"), "\(daemon.log)")
    #expect(!watcher.ended && !caller.ended, "a client saw its connection end")
  }

  /// A client that reads nothing across the restart keeps its connection and loses no
  /// byte: far more replies than its socket holds wait unread at the stop (some in the
  /// old process's socket buffers, the rest in its outbox), and the next process writes
  /// the rest before anything of its own. A watcher that reads nothing gets every patch.
  @Test func aClientThatReadsNothingKeepsItsConnectionAndAllItsOutput() async throws {
    let (notify, daemon) = try await Self.startedUnderAStore()
    defer { notify.close() }
    defer { daemon.kill() }
    let (watcher, subscription, caller) = try await Self.watcherAndCaller(on: daemon.socket)

    // 300 more rows, in one batch: revisions 2 to 301, which the watcher does not read.
    let rows = 300
    let call = #"{"jsonrpc":"2.0","id":10,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#
    caller.send("[" + Array(repeating: call, count: rows).joined(separator: ",") + "]")
    let added = try await caller.message("the batch's replies")
    let last = added.arrayValue?.last?["result"]?["revision"]?.intValue
    #expect(last == Int64(rows + 1), "\(added.arrayValue?.last ?? .null)")

    // A reader asks for the whole state again and again, and reads none of the replies.
    let reader = try LineSocket(path: daemon.socket)
    let gets = 60
    var lines = ""
    for index in 0..<gets { lines += #"{"jsonrpc":"2.0","id":\#(1000 + index),"method":"state.get","params":{"path":""}}"# + "\n" }
    reader.sendPart(lines)
    try await Task.sleep(for: .milliseconds(200))
    try await daemon.terminate()
    #expect(notify.storedDescriptors.filter { $0.name.hasPrefix("connection-") }.count == 3, "\(notify.storedDescriptors.map(\.name))\n\(daemon.log)")
    try await daemon.start(passingAll: notify.storedDescriptors)

    var size = 0
    for index in 0..<gets {
      let reply = try await reader.message("state.get reply \(index) of \(gets), written before the restart or handed over")
      #expect(reply["id"]?.intValue == Int64(1000 + index), "the replies in order: \(reply["id"] ?? .null)")
      #expect(reply["result"]?["value"]?["counters"]?.arrayValue?.count == rows + 1, "reply \(index) whole")
      size += reply.jsonLine.count
    }
    #expect(size > 1 << 20, "more than a socket holds waited unread: \(size) bytes")
    reader.send(#"{"jsonrpc":"2.0","id":2000,"method":"state.get","params":{"path":"/counters/0"}}"#)
    #expect(try await reader.message("the next process's own reply")["id"] == 2000)

    caller.send(Self.addButton)
    let next = try await caller.message("an intent after the restart")
    #expect(next["result"]?["revision"]?.intValue == Int64(rows + 2), "\(next)")
    for revision in 2...(rows + 2) {
      let patch = try await watcher.message("the patch of revision \(revision)")
      #expect(patch["params"]?["subscription"]?.intValue == subscription && patch["params"]?["resync"] == nil, "\(patch)")
      let got = patch["params"]?["revision"]?.intValue
      #expect(got == Int64(revision), "every patch once, in order: \(patch)")
      if got != Int64(revision) { break }
    }
    #expect(!watcher.ended && !caller.ended && !reader.ended, "a client saw its connection end")
    #expect(daemon.log.contains("took over 3 connections"), "\(daemon.log)")
  }

  /// A client that connects while no process serves waits in the socket's backlog, and the
  /// next process accepts it only after it has adopted the handed-over connections: its
  /// intent comes after their watches are registered, so a handed watcher gets that
  /// revision as its next patch, not a resync of the whole state.
  @Test func aClientThatConnectsDuringTheRestartIsServedAfterTheHandedOverOnes() async throws {
    let (notify, daemon) = try await Self.startedUnderAStore(capacity: 64)
    defer { notify.close() }
    defer { daemon.kill() }
    // Enough handed watchers that adopting them takes a while.
    var watchers: [(socket: LineSocket, subscription: Int64)] = []
    for index in 0..<40 {
      let watcher = try LineSocket(path: daemon.socket)
      watcher.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/counters"}}"#)
      let reply = try await watcher.message("watcher \(index)'s reply")
      watchers.append((watcher, try #require(reply["result"]?["subscription"]?.intValue, "\(reply)")))
    }
    try await daemon.terminate()

    // Newcomers, each with an intent sent before any process serves.
    let newcomers = try (0..<4).map { _ in try LineSocket(path: daemon.socket) }
    for newcomer in newcomers { newcomer.send(Self.addButton) }
    try await daemon.start(passingAll: notify.storedDescriptors)

    var revisions: [Int64] = []
    for (index, newcomer) in newcomers.enumerated() {
      let reply = try await newcomer.message("newcomer \(index)'s reply")
      revisions.append(try #require(reply["result"]?["revision"]?.intValue, "\(reply)"))
    }
    #expect(revisions.sorted() == [1, 2, 3, 4], "\(revisions)")
    for (index, watcher) in watchers.enumerated() {
      for revision in Int64(1)...4 {
        let patch = try await watcher.socket.message("watcher \(index)'s patch of revision \(revision)")
        #expect(patch["params"]?["subscription"]?.intValue == watcher.subscription, "\(patch)")
        let patchRevision = patch["params"]?["revision"]?.intValue
        #expect(patch["params"]?["resync"] == nil && patchRevision == revision, "watcher \(index): a patch, not a resync: \(patch)")
        if patchRevision != revision { break }
      }
    }
    #expect(watchers.allSatisfy { !$0.socket.ended }, "a watcher saw its connection end")
  }

  /// A restart with no client connected is a hand-over too: the next process counts it.
  @Test func aRestartWithNoConnectionStillCountsTheGeneration() async throws {
    let (notify, daemon) = try await Self.startedUnderAStore()
    defer { notify.close() }
    defer { daemon.kill() }
    try await daemon.terminate()
    let stored = notify.storedDescriptors
    #expect(stored.map(\.name).sorted() == ["handover", "socket"], "\(stored.map(\.name))\n\(daemon.log)")

    try await daemon.start(passingAll: stored)
    let status = try await daemon.connect().call("daemon.status")
    #expect(status["generation"] == 1, "\(status)")
    #expect(daemon.log.contains("took over 0 connections at revision 0 (generation 1)"), "\(daemon.log)")
  }

  /// A next process whose model has another schema migrates the state it restores: what
  /// the watchers hold is of the old shape, so each handed state watch gets a resync (the
  /// whole value at the revision handed over) before the next patch. The test changes the
  /// schema the handing process wrote into the hand-over's state, as a new build would
  /// find it.
  @Test func aModelOfAnotherSchemaGivesEveryHandedWatchAResync() async throws {
    let (notify, daemon) = try await Self.startedUnderAStore()
    defer { notify.close() }
    defer { daemon.kill() }
    let (watcher, subscription, caller) = try await Self.watcherAndCaller(on: daemon.socket)
    try await daemon.terminate()

    var stored = notify.storedDescriptors
    let index = try #require(stored.firstIndex { $0.name == "handover" }, "\(stored.map(\.name))")
    _ = lseek(stored[index].descriptor, 0, SEEK_SET)
    let written = String(decoding: FileHandle(fileDescriptor: stored[index].descriptor, closeOnDealloc: false).readDataToEndOfFile(), as: UTF8.self)
    let earlier = written.replacing(/"schema":"[^"]*"/, with: #""schema":"an-earlier-schema""#)
    #expect(earlier != written, "the hand-over's state names its schema: \(written)")
    let file = try DaemonHarness.temporaryDirectory() + "/handover.json"
    try earlier.write(toFile: file, atomically: false, encoding: .utf8)
    let descriptor = open(file, O_RDONLY | O_CLOEXEC)
    defer { close(descriptor) }
    stored[index].descriptor = descriptor

    try await daemon.start(passingAll: stored)
    let resync = try await watcher.message("the resync after the migration")
    #expect(resync["params"]?["subscription"]?.intValue == subscription, "\(resync)")
    #expect(resync["params"]?["resync"] == true && resync["params"]?["revision"] == 1, "the whole value at the revision handed over: \(resync)")
    #expect(resync["params"]?["value"]?.arrayValue?.count == 1, "\(resync)")
    caller.send(Self.addButton)
    #expect(try await caller.message("an intent after the restart")["result"]?["revision"] == 2)
    let next = try await watcher.message("the change after the resync")
    #expect(next["params"]?["revision"] == 2 && next["params"]?["resync"] == nil, "then patches again: \(next)")
    #expect(daemon.log.contains("migrated to"), "\(daemon.log)")
    #expect(!watcher.ended && !caller.ended, "a client saw its connection end")
  }

  /// A daemon started under a descriptor store of `capacity` descriptors (the test's notify
  /// socket plays systemd's), once it stored its socket there.
  static func startedUnderAStore(capacity: Int = 16, options: [String] = []) async throws -> (notify: NotifyListener, daemon: SpawnedDaemon) {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    do {
      let daemon = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path, "FDSTORE": String(capacity)], options: options)
      do {
        try await daemon.start()
        try await eventually("the daemon to store its socket\n\(notify.messages)") { notify.storedDescriptors.contains { $0.name == "socket" } }
        return (notify, daemon)
      } catch {
        daemon.kill()
        throw error
      }
    } catch {
      notify.close()
      throw error
    }
  }

  /// A watcher of `/counters`, and a caller whose first intent made revision 1, which the
  /// watcher saw under its subscription.
  static func watcherAndCaller(on socket: String) async throws -> (watcher: LineSocket, subscription: Int64, caller: LineSocket) {
    let watcher = try LineSocket(path: socket)
    watcher.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/counters"}}"#)
    let watching = try await watcher.message("the reply to state.watch")
    let subscription = try #require(watching["result"]?["subscription"]?.intValue, "\(watching)")
    let caller = try LineSocket(path: socket)
    caller.send(addButton)
    #expect(try await caller.message("the first intent's reply")["result"]?["revision"] == 1)
    let first = try await watcher.message("the first change")
    #expect(first["params"]?["revision"] == 1 && first["params"]?["subscription"]?.intValue == subscription, "\(first)")
    return (watcher, subscription, caller)
  }

  /// Hand-overs in a row under load: `ARBOR_HANDOVER_CYCLES` (else 3), with
  /// `ARBOR_HANDOVER_CLIENTS` clients calling intents one after another (else 8) and
  /// `ARBOR_HANDOVER_WATCHERS` root watchers (else 8), under `--fsync always`.
  static let cycles = environment("ARBOR_HANDOVER_CYCLES", 3)
  static let clients = environment("ARBOR_HANDOVER_CLIENTS", 8)
  static let watchers = environment("ARBOR_HANDOVER_WATCHERS", 8)
  /// Milliseconds a client waits between a reply and its next call (`ARBOR_HANDOVER_THINK_MS`, else 0).
  static let think = environment("ARBOR_HANDOVER_THINK_MS", 0)
  /// Counter rows added before the clients start (`ARBOR_HANDOVER_ROWS`, else 0): each
  /// row is two models.
  static let rows = environment("ARBOR_HANDOVER_ROWS", 0)
  /// `ARBOR_HANDOVER_INTENT=increment`: the clients increment the rows' counters (client i
  /// the rows i, i + clients, …) instead of adding a row per call, so that the tree keeps
  /// its size; needs rows.
  static let increments = ProcessInfo.processInfo.environment["ARBOR_HANDOVER_INTENT"] == "increment" && rows > 0

  /// Whether `pid` has ended: gone, or a zombie nobody reaped yet (an upgrade's process is
  /// reparented when the one that started it exits).
  static func hasEnded(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return true }
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return true }
    return stat[stat.index(close, offsetBy: 2)...].first == "Z"
  }

  static func environment(_ name: String, _ fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
  }

  /// What one client saw: the revisions its intents were acknowledged at, the longest it
  /// waited for a reply, and any error or end of its connection.
  struct CallerRecord: Sendable {
    var revisions: [Int64] = []
    var longestWait: Duration = .zero
    var failures: [String] = []
    /// The calls that waited 20 ms or more: when each was sent, and how long it waited.
    var slowCalls: [(sent: ContinuousClock.Instant, wait: Duration)] = []
  }

  @Test func handOversInARowUnderLoadLoseNothingAndRunNothingTwice() async throws {
    try await handOversInARow(viaUpgrade: false)
  }

  /// The same through upgrades (`SIGUSR2`): each new process restores the state while the
  /// old one serves, and replays the revisions the clients committed meanwhile.
  @Test func upgradesInARowUnderLoadLoseNothingAndRunNothingTwice() async throws {
    try await handOversInARow(viaUpgrade: true)
  }

  /// Under systemd's descriptor store (the test plays systemd: it keeps what the daemon
  /// stores, and starts the next process with it) or through upgrades.
  func handOversInARow(viaUpgrade: Bool) async throws {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    defer { notify.close() }
    let daemon = try SpawnedDaemon(
      environment: viaUpgrade ? [:] : ["NOTIFY_SOCKET": notify.path, "FDSTORE": String(Self.clients + Self.watchers + 8)],
      options: ["--max-connections", String(max(1_024, Self.clients + Self.watchers + 8))])
    defer { daemon.kill() }
    try await daemon.start()
    // The process that serves now: an upgrade's is not the test's child.
    var serving = daemon.processID
    defer { if serving != daemon.processID { kill(serving, SIGKILL) } }
    if !viaUpgrade {
      try await eventually("the daemon to store its socket") { notify.storedDescriptors.contains { $0.name == "socket" } }
    }

    // A large tree first, when asked for: up to 2,000 rows in batches of 250 intents, more
    // restored whole from a record made here (appending one row at a time grows with the
    // rows: 50,000 would take minutes).
    if Self.rows > 2_000 {
      let filler = try await daemon.connect()
      let current = try await filler.call("state.snapshot")
      let rows = (0..<Self.rows).map { row -> JSONValue in
        let id = { (n: Int) in JSONValue.string(String(format: "f%015x", 2 * row + n)) }
        return ["id": id(0), "counter": ["id": id(1), "count": 0, "alert": .null, "isLoadingFact": false]]
      }
      var state = current["state"]?.objectValue ?? [:]
      state["counters"] = .array(rows)
      var record = current.objectValue ?? [:]
      record["state"] = .object(state)
      let restored = try await filler.call("state.restore", ["record": .object(record)])
      #expect(restored["revision"] != nil, "\(restored)")
      filler.close()
    } else {
      let filler = try LineSocket(path: daemon.socket)
      var filled = 0
      while filled < Self.rows {
        let count = min(250, Self.rows - filled)
        let calls = (0..<count).map { #"{"jsonrpc":"2.0","id":\#($0 + 1),"method":"intent.call","params":{"intent":"addButtonTapped"}}"# }
        filler.send("[" + calls.joined(separator: ",") + "]")
        let replies = try await filler.message("the replies to \(count) intents")
        #expect(replies.arrayValue?.count == count)
        filled += count
      }
    }
    let client = try await daemon.connect()
    let start = try await client.call("daemon.status")["revision"]?.intValue ?? 0
    client.close()

    // Root watchers from the revision now (their replies carry no value: the tree may be
    // large), each from the revision its reply names.
    var watchers: [(socket: LineSocket, subscription: Int64, from: Int64)] = []
    for index in 0..<Self.watchers {
      let socket = try LineSocket(path: daemon.socket)
      socket.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"since":\#(start)}}"#)
      let reply = try await socket.message("watcher \(index)'s reply")
      let subscription = try #require(reply["result"]?["subscription"]?.intValue, "\(reply)")
      watchers.append((socket, subscription, reply["result"]?["revision"]?.intValue ?? -1))
    }
    // Watchers read as they come, as real ones do, until the final revision (one that
    // reads nothing: `aClientThatReadsNothingKeepsItsConnectionAndAllItsOutput`).
    let target = RevisionTarget()
    let readers = watchers.enumerated().map { index, watcher in
      Task { () -> (seen: [Int64], problems: [String]) in
        var seen: [Int64] = []
        var problems: [String] = []
        var progress = ContinuousClock.now
        do {
          while (seen.last ?? watcher.from) < target.revision {
            // Short waits, so that the target set at the end is seen.
            guard let line = try await watcher.socket.pollLine(seconds: 0.2) else {
              if ContinuousClock.now - progress > .seconds(20) {
                throw HarnessError("no notification for 20 s after revision \(seen.last ?? watcher.from)")
              }
              continue
            }
            progress = .now
            guard let changed = try StateChangedLine(line) ?? StateChangedLine.parsed(JSONValue(parsing: line)) else { continue }
            if changed.subscription != watcher.subscription { problems.append("watcher \(index): another subscription") }
            if changed.resync { problems.append("watcher \(index): a resync at revision \(changed.revision)") }
            seen.append(changed.revision)
          }
        } catch {
          problems.append("watcher \(index): \(error)")
        }
        return (seen, problems)
      }
    }
    let stop = StopFlag()
    let answered = AnsweredClients()
    let callers = (0..<Self.clients).map { index in
      Task { () -> CallerRecord in
        var record = CallerRecord()
        do {
          let socket = try LineSocket(path: daemon.socket)
          var id: Int64 = 0
          while !stop.isSet {
            id += 1
            let sent = ContinuousClock.now
            if Self.increments {
              let row = (index + Int(id) * Self.clients) % Self.rows
              socket.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"intent.call","params":{"intent":"incrementTapped","target":"/counters/\#(row)/counter"}}"#)
            } else {
              socket.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"intent.call","params":{"intent":"addButtonTapped"}}"#)
            }
            let reply = try await socket.message("client \(index)'s reply to request \(id)")
            record.longestWait = max(record.longestWait, .now - sent)
            if .now - sent >= .milliseconds(20) { record.slowCalls.append((sent, .now - sent)) }
            guard reply["id"]?.intValue == id, let revision = reply["result"]?["revision"]?.intValue else {
              record.failures.append("request \(id): \(reply)")
              break
            }
            record.revisions.append(revision)
            if record.revisions.count == 1 { answered.add() }
            if Self.think > 0 { try await Task.sleep(for: .milliseconds(Self.think)) }
          }
        } catch {
          record.failures.append("\(error)")
        }
        return record
      }
    }

    // Every client connected and answered before the first stop, so that each hand-over
    // has all of them to hand (one that connects during a stop waits in the backlog, and
    // the next process accepts it once it has adopted the others).
    try await eventually("every one of \(Self.clients) clients to have its first reply", seconds: 60) { answered.count == Self.clients }
    var handOverTimes: [Duration] = []
    // When each hand-over happened, as the test saw it: from the SIGTERM to every
    // connection taken, or from the old process of an upgrade seen gone to the new one's
    // answer. A call whose wait overlaps one waited across it.
    var windows: [(start: ContinuousClock.Instant, end: ContinuousClock.Instant)] = []
    for cycle in 1...Self.cycles {
      try await Task.sleep(for: .milliseconds(300))
      let started = ContinuousClock.now
      if viaUpgrade {
        let old = serving
        kill(old, SIGUSR2)
        try await eventually("upgrade \(cycle): the old process to hand over and exit", seconds: 120) { Self.hasEnded(old) }
        let gone = ContinuousClock.now
        // Closed at once: one left open a cycle counts against the daemon's connections,
        // which 1,000 watchers bring near their limit.
        let asking = try await daemon.connect()
        let status = try await asking.call("daemon.status")
        asking.close()
        windows.append((gone, .now))
        serving = try #require(status["pid"]?.intValue.map { pid_t($0) }, "\(status)")
        #expect(serving != old && status["generation"]?.intValue == Int64(cycle), "upgrade \(cycle): \(status)")
        handOverTimes.append(.now - started)
        continue
      }
      let stopped = ContinuousClock.now
      try await daemon.terminate()
      let stored = notify.storedDescriptors
      try await daemon.start(passingAll: stored)
      do {
        try await eventually("hand-over \(cycle): the next process to take every connection") {
          notify.storedDescriptors.map(\.name) == ["socket"]
        }
      } catch {
        let log = daemon.log.split(separator: "\n").suffix(30).joined(separator: "\n")
        Issue.record("hand-over \(cycle): still stored \(notify.storedDescriptors.map(\.name)); the daemon's log ends: \(log)")
        throw error
      }
      handOverTimes.append(.now - started)
      windows.append((stopped, .now))
      #expect(
        stored.filter { $0.name.hasPrefix("connection-") }.count == Self.clients + Self.watchers,
        "hand-over \(cycle): \(stored.map(\.name)); the daemon's log ends: \(daemon.log.split(separator: "\n").suffix(30).joined(separator: "\n"))")
    }
    try await Task.sleep(for: .milliseconds(300))
    stop.set()
    var records: [CallerRecord] = []
    for caller in callers { records.append(await caller.value) }

    let acknowledged = records.flatMap(\.revisions)
    let failures = records.flatMap(\.failures)
    #expect(failures.isEmpty, "\(failures)")
    #expect(Set(acknowledged).count == acknowledged.count, "an intent was answered twice or two shared a revision")
    let status = try await daemon.connect().call("daemon.status")
    let final = status["revision"]?.intValue ?? -1
    #expect(status["generation"]?.intValue == Int64(Self.cycles), "\(status)")
    // No intent ran without its answer, none twice: each acknowledged one is a counter.
    let counters = try await daemon.connect().call("state.get", ["path": "/counters"])["value"]?.arrayValue ?? []
    if Self.increments {
      let counted = counters.reduce(0) { $0 + Int($1["counter"]?["count"]?.intValue ?? 0) }
      #expect(counted == acknowledged.count, "the counts add up to \(counted) for \(acknowledged.count) acknowledged increments")
    } else {
      #expect(
        counters.count == acknowledged.count + Self.rows, "\(counters.count) counters for \(acknowledged.count) acknowledged intents and \(Self.rows) rows before")
    }
    #expect(acknowledged.max() == final)
    // Every watcher got every revision after its first, once, in order, as patches.
    target.revision = final
    for (index, reader) in readers.enumerated() {
      let (seen, problems) = await reader.value
      #expect(problems.isEmpty, "\(problems)")
      let from = watchers[index].from
      let expected = from < final ? Array((from + 1)...final) : []
      if seen != expected {
        let missing = Set(expected).subtracting(seen).sorted()
        Issue.record("watcher \(index) got \(seen.count) revisions for \(expected.count): missing \(missing.prefix(10)), repeated or out of order elsewhere")
      }
    }
    if viaUpgrade {
      // Each new process went on from the tree it restored while the old one served, not
      // from a whole restore after the stop (which would pass every check above, slowly).
      let continued = daemon.log.components(separatedBy: "while the old process served, and").count - 1
      #expect(continued == Self.cycles, "\(continued) of \(Self.cycles) upgrades went on from the tree restored ahead; the log ends: \(daemon.log.suffix(3_000))")
    }
    let longest = records.map(\.longestWait).max() ?? .zero
    let slow = records.flatMap(\.slowCalls)
    let across = slow.filter { call in windows.contains { call.sent <= $0.end && call.sent + call.wait >= $0.start } }.map(\.wait)
    print(
      "\(viaUpgrade ? "upgrades" : "hand-overs") under load: \(Self.cycles) \(viaUpgrade ? "upgrades" : "hand-overs"), \(Self.clients) clients (\(Self.think) ms between calls), \(Self.watchers) watchers, "
        + "\(Self.rows) rows before, \(acknowledged.count) intents acknowledged, "
        + "revision \(final); the longest wait for a reply \(longest), "
        + "across a hand-over \(across.max() ?? .zero) (\(across.count) calls waited across one \(20) ms or more); "
        + (viaUpgrade ? "SIGUSR2 to the old process gone: " : "stop to the next process serving every connection: ")
        + handOverTimes.map { "\($0)" }.joined(separator: ", "))
  }
}

/// How many clients of the load test have had their first reply.
final class AnsweredClients: Sendable {
  private let value = Atomic<Int>(0)
  func add() { value.add(1, ordering: .relaxed) }
  var count: Int { value.load(ordering: .relaxed) }
}

/// The revision the watchers read up to, set once it is known.
final class RevisionTarget: Sendable {
  private let value = Atomic<Int64>(.max)
  var revision: Int64 {
    get { value.load(ordering: .relaxed) }
    set { value.store(newValue, ordering: .relaxed) }
  }
}

/// A client's connection read line by line, that tells when the daemon ended it.
///
/// Its bytes are read and searched with `recv`, `memchr` and `memcpy` on a buffer of its
/// own: the test process is a debug build, where the same through `Array`'s generic
/// methods cost tens of nanoseconds a byte, and a thousand watchers' patches took the
/// cores the daemons under test needed.
final class LineSocket: @unchecked Sendable {
  // Unchecked: one test task uses it at a time.
  private let socket: RawSocket
  /// Read and not yet taken as lines: `storage[start..<end]`, of which `start..<searched`
  /// holds no newline.
  private var storage = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
  private var start = 0
  private var end = 0
  private var searched = 0
  private(set) var ended = false

  init(path: String) throws { socket = try RawSocket(path: path) }

  deinit { storage.deallocate() }

  /// Sends `line` and its newline.
  func send(_ line: String) { socket.send(line + "\n") }

  /// Sends bytes with no newline: the start of a line.
  func sendPart(_ text: String) { socket.send(text) }

  /// The next line as JSON, within 20 s.
  func message(_ what: String) async throws -> JSONValue {
    try await withDeadline(what, seconds: 20) {
      while true {
        if let message = try await self.poll(seconds: 1) { return message }
      }
    }
  }

  /// The next line as JSON, or nil when none is whole within `seconds`; throws when the
  /// connection ended.
  func poll(seconds: Double) async throws -> JSONValue? {
    try await pollLine(seconds: seconds).map { try JSONValue(parsing: $0) }
  }

  /// The next line's bytes, without its newline, or nil when none is whole within
  /// `seconds`; throws when the connection ended. Waits on ``SocketReadiness``, which
  /// wakes it when bytes come.
  func pollLine(seconds: Double) async throws -> [UInt8]? {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while true {
      if let line = nextLine() { return line }
      if end == storage.count { makeRoom() }
      let count = recv(socket.fd, storage.baseAddress! + end, storage.count - end, Int32(MSG_DONTWAIT))
      if count == 0 {
        ended = true
        throw HarnessError("the connection ended")
      }
      if count > 0 {
        end += count
      } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
        ended = true
        throw HarnessError("the connection ended: errno \(errno)")
      } else {
        guard ContinuousClock.now < deadline, await SocketReadiness.shared.readable(socket.fd, until: deadline) else { return nil }
      }
    }
  }

  /// The first whole line read, taken out; nil when its newline has not come.
  private func nextLine() -> [UInt8]? {
    let base = storage.baseAddress!
    guard end > searched, let found = memchr(base + searched, 0x0A, end - searched) else {
      searched = end
      return nil
    }
    let newline = base.distance(to: UnsafeMutableRawPointer(found))
    let length = newline - start
    let line = [UInt8](unsafeUninitializedCapacity: length) { buffer, count in
      if length > 0 { memcpy(buffer.baseAddress!, base + start, length) }
      count = length
    }
    start = newline + 1
    searched = start
    return line
  }

  /// Moves what is unread to the front, or into a buffer twice as large when it fills this one.
  private func makeRoom() {
    let unread = end - start
    if start == 0 {
      let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: storage.count * 2, alignment: 1)
      memcpy(larger.baseAddress!, storage.baseAddress!, unread)
      storage.deallocate()
      storage = larger
    } else if unread > 0 {
      memmove(storage.baseAddress!, storage.baseAddress! + start, unread)
    }
    searched -= start
    start = 0
    end = unread
  }
}
