import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import PostgresTestServer
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Two counterfactd on one PostgreSQL store, the leader killed with SIGKILL at random
/// moments while clients call intents on it, again and again: each time the standby takes
/// the lead, the killed daemon comes back as the standby, and
///
/// - no acknowledged revision is lost, and none was acknowledged twice (each acknowledged
///   revision is in the journal once, made by the call that was told of it);
/// - the state is exactly what the journal produces;
/// - a watcher of the standby, resuming with `since` on the new leader after the takeover,
///   reaches the leader's state;
/// - takeover times (kill to the first intent the new leader accepts) are printed.
///
/// `ARBOR_TAKEOVER_CYCLES` sets the number of takeovers (20 by default).
@Suite(.serialized) struct TakeoverTests {
  static var cycles: Int { ProcessInfo.processInfo.environment["ARBOR_TAKEOVER_CYCLES"].flatMap(Int.init) ?? 20 }
  static let counters = 3

  @Test func aStandbyTakesOverEachTimeTheLeaderIsKilledAndNothingAcknowledgedIsLost() async throws {
    let address = try await PostgresTestServer.newDatabase()
    let daemons = [try SpawnedDaemon(store: address), try SpawnedDaemon(store: address)]
    defer { for daemon in daemons { daemon.kill() } }
    try await daemons[0].start()
    let setup = try await daemons[0].connect()
    for _ in 0..<Self.counters { try await setup.call("intent.call", ["intent": "addButtonTapped"]) }
    setup.close()
    try await daemons[1].start()
    var leader = 0
    var acknowledged: [UInt64: Int] = [:]
    var takeovers: [Duration] = []
    for cycle in 0..<Self.cycles {
      let standby = 1 - leader
      try await daemons[standby].waitUntilFollowing(revision: try await daemons[leader].revision())
      // A watcher of the standby, from its current revision.
      let watcher = try await daemons[standby].connect()
      let watched = try #require(try await watcher.call("state.watch")["revision"]?.intValue)
      watcher.close()
      // Clients call on the leader until it is killed.
      let acks = try await Self.callUntilKilled(daemons[leader]) {
        try? await Task.sleep(for: .milliseconds(Int.random(in: 50...300)))
      }
      for (revision, counter) in acks {
        #expect(acknowledged[revision] == nil, "cycle \(cycle): revision \(revision) was acknowledged twice")
        acknowledged[revision] = counter
      }
      let killed = ContinuousClock.now
      try await daemons[standby].waitUntilLeading()
      takeovers.append(ContinuousClock.now - killed)
      // The watcher resumes on the new leader with `since` and reaches its state.
      let resumed = try await daemons[standby].connect()
      let notifications = DeadlineIterator(resumed.notifications.makeAsyncIterator())
      var document = try await resumed.call("state.at", ["revision": .int(Int64(watched))])["value"] ?? .null
      let start = try await resumed.call("state.watch", ["since": .int(Int64(watched))])
      let target = try await daemons[standby].revision()
      var at = UInt64(start["revision"]?.intValue ?? 0)
      while at < target {
        let notification = try await notifications.next("cycle \(cycle): the resumed watch to reach revision \(target)")
        guard let patch = notification.params?["patch"] else { continue }
        try JSONPatch(json: patch).apply(to: &document)
        at = UInt64(notification.params?["revision"]?.intValue ?? 0)
      }
      let state = try await resumed.call("state.get")
      #expect(document == state["value"], "cycle \(cycle): the resumed watcher's state is the leader's")
      resumed.close()
      // The killed daemon comes back, and finds itself the standby.
      try await daemons[leader].start()
      leader = standby
    }
    // Every acknowledged revision is in the journal, made by the call that was told of it,
    // and the state is what the journal produces.
    let client = try await daemons[leader].connect()
    let journal = try await CrashTests.journal(client, since: UInt64(Self.counters))
    var counts = Array(repeating: 0, count: Self.counters)
    var journalled: [UInt64: Int] = [:]
    for entry in journal {
      guard let counter = entry.counter else { continue }
      counts[counter] += 1
      journalled[entry.revision] = counter
    }
    let lost = acknowledged.filter { journalled[$0.key] != $0.value }
    #expect(lost.isEmpty, "acknowledged revisions missing from the journal or made by another call: \(lost.keys.sorted().prefix(10))")
    let state = try await client.call("state.get")
    #expect(try CrashTests.counts(in: state["value"] ?? .null) == counts, "the state is what the journal produces")
    let revisions = journal.map(\.revision)
    #expect(revisions == Array((UInt64(Self.counters) + 1)...(revisions.last ?? UInt64(Self.counters))), "the journal has no gap")
    let sorted = takeovers.sorted()
    func percentile(_ p: Double) -> Duration { sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)] }
    print(
      "takeover: \(takeovers.count) cycles, \(acknowledged.count) acknowledged intents, \(lost.count) lost; kill to the first intent accepted: p50 \(percentile(0.5).formatted(.units(allowed: [.milliseconds]))), p99 \(percentile(0.99).formatted(.units(allowed: [.milliseconds]))), max \(sorted.last ?? .zero)"
    )
    #expect(percentile(0.5) < .seconds(2), "the median takeover is within 2 s")
  }

  /// Calls intents on `daemon` from `counters` clients until `wait` returns, then kills it;
  /// returns the revisions acknowledged, each with the counter its call changed.
  static func callUntilKilled(_ daemon: SpawnedDaemon, wait: @escaping @Sendable () async -> Void) async throws -> [(UInt64, Int)] {
    let connections = try await (0..<counters).asyncMap { _ in try await daemon.connect() }
    return try await withDeadline("clients to stop once the leader is killed", seconds: 30) {
      try await withThrowingTaskGroup(of: [(UInt64, Int)].self) { group in
        for (index, connection) in connections.enumerated() {
          group.addTask {
            var acks: [(UInt64, Int)] = []
            while true {
              guard
                let reply = try? await connection.call(
                  "intent.call", ["target": .string("/counters/\(index)/counter"), "intent": "incrementTapped"]),
                let revision = reply["revision"]?.intValue
              else { return acks }
              acks.append((UInt64(revision), index))
            }
          }
        }
        await wait()
        daemon.kill()
        var all: [(UInt64, Int)] = []
        for try await acks in group { all += acks }
        return all
      }
    }
  }
}

/// A counterfactd started with posix_spawn, so that it can be killed and started again on
/// the same directory any number of times.
final class SpawnedDaemon: Sendable {
  let directory: String
  let store: String
  private let pid = Mutex<pid_t>(0)

  init(store: String) throws {
    self.directory = try DaemonHarness.temporaryDirectory()
    self.store = store
  }

  var socket: String { directory + "/d.sock" }

  /// Starts the daemon and waits until its socket answers.
  func start() async throws {
    let arguments = [
      DaemonHarness.binary(), "--socket", socket, "--state-dir", directory + "/state", "--store", store, "--fsync", "always",
    ]
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, directory + "/daemon.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    var child: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let status = posix_spawn(&child, arguments[0], &actions, nil, argv, environ)
    guard status == 0 else { throw HarnessError("posix_spawn of counterfactd failed: \(status)") }
    pid.withLock { $0 = child }
    // Reaped by a thread of its own, so that no zombie is left.
    let spawned = child
    Thread.detachNewThread {
      var status: Int32 = 0
      waitpid(spawned, &status, 0)
    }
    try await DaemonHarness.waitUntilListening(socket)
  }

  func kill() {
    let child = pid.withLock { $0 }
    if child > 0 { Glibc.kill(child, SIGKILL) }
  }

  func connect() async throws -> ArborConnection {
    let socket = self.socket
    return try await withDeadline("a connection to \(socket)") { try await ArborConnection.connect(to: socket) }
  }

  /// The daemon's revision now.
  func revision() async throws -> UInt64 {
    let client = try await connect()
    defer { client.close() }
    return UInt64(try await client.call("state.get")["revision"]?.intValue ?? -1)
  }

  /// Waits until the daemon is a standby at `revision` or later.
  func waitUntilFollowing(revision: UInt64) async throws {
    try await eventually("the standby at \(socket) to follow revision \(revision)", seconds: 30) {
      guard let client = try? await ArborConnection.connect(to: self.socket) else { return false }
      defer { client.close() }
      guard let status = try? await client.call("daemon.status") else { return false }
      return status["journal"]?["lead"]?["standby"] == true && UInt64(status["revision"]?.intValue ?? -1) >= revision
    }
  }

  /// Waits until the daemon accepts an intent (it leads).
  func waitUntilLeading() async throws {
    try await eventually("the standby at \(socket) to take the lead", seconds: 30) {
      guard let client = try? await ArborConnection.connect(to: self.socket) else { return false }
      defer { client.close() }
      guard let status = try? await client.call("daemon.status") else { return false }
      return status["journal"]?["lead"]?["standby"] == false
    }
  }
}
