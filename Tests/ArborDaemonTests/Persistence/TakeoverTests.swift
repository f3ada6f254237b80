import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import PostgresTestServer
import ProcessSlots
import Synchronization
import Testing

extension DaemonsUnderLoad {
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
  /// `NetworkCutTests` does the same with the daemons and the server in network namespaces
  /// of their own, cutting the leader's link as well as killing it.
  @Suite(.serialized, .startsProcesses) struct TakeoverTests {
    static var cycles: Int { ProcessInfo.processInfo.environment["ARBOR_TAKEOVER_CYCLES"].flatMap(Int.init) ?? 20 }
    static let counters = 3

    @Test func aStandbyTakesOverEachTimeTheLeaderIsKilledAndNothingAcknowledgedIsLost() async throws {
      let address = try await PostgresTestServer.newDatabase()
      let daemons = [try SpawnedDaemon(store: address), try SpawnedDaemon(store: address)]
      defer { for daemon in daemons { daemon.kill() } }
      try await Self.addCounters(Self.counters, on: daemons[0])
      try await daemons[1].start()
      var leader = 0
      var ledger = Ledger()
      var takeovers: [Duration] = []
      for cycle in 0..<Self.cycles {
        let standby = 1 - leader
        try await daemons[standby].waitUntilFollowing(revision: try await daemons[leader].revision())
        let watched = try await Self.watchedRevision(on: daemons[standby])
        // Clients call on the leader until it is killed.
        let (acks, killed) = try await Self.callIntents((0..<Self.counters).map { (daemons[leader], $0) }) { [leader] in
          try? await Task.sleep(for: .milliseconds(Int.random(in: 50...300)))
          daemons[leader].kill()
          return ContinuousClock.now
        }
        ledger.record(acks, cycle: cycle)
        try await daemons[standby].waitUntilLeading()
        takeovers.append(ContinuousClock.now - killed)
        try await Self.resumeWatch(from: watched, on: daemons[standby], cycle: cycle)
        // The killed daemon comes back, and finds itself the standby.
        try await daemons[leader].start()
        leader = standby
      }
      try await Self.verify(ledger, on: daemons[leader], counters: Self.counters)
      print("takeover: \(takeovers.count) cycles, \(ledger.acknowledged.count) acknowledged intents; kill to the first intent accepted: \(Self.percentiles(takeovers))")
      #expect(Self.percentile(takeovers, 0.5) < .seconds(2), "the median takeover is within 2 s")
    }

    // MARK: - Shared by the takeover tests

    /// Every revision acknowledged to a client, with the counter its call changed.
    struct Ledger {
      var acknowledged: [UInt64: Int] = [:]

      mutating func record(_ acks: [(UInt64, Int)], cycle: Int) {
        for (revision, counter) in acks {
          #expect(acknowledged[revision] == nil, "cycle \(cycle): revision \(revision) was acknowledged twice")
          acknowledged[revision] = counter
        }
      }
    }

    /// Starts `daemon` (the first leader) and adds `count` counters through it.
    static func addCounters(_ count: Int, on daemon: SpawnedDaemon) async throws {
      try await daemon.start()
      let setup = try await daemon.connect()
      defer { setup.close() }
      for _ in 0..<count { try await setup.call("intent.call", ["intent": "addButtonTapped"]) }
    }

    /// The revision a watcher of `daemon` starts from now.
    static func watchedRevision(on daemon: SpawnedDaemon) async throws -> UInt64 {
      let watcher = try await daemon.connect()
      defer { watcher.close() }
      return UInt64(try #require(try await watcher.call("state.watch")["revision"]?.intValue))
    }

    /// A watcher that saw `watched` resumes on `daemon` with `since` and reaches its state.
    static func resumeWatch(from watched: UInt64, on daemon: SpawnedDaemon, cycle: Int) async throws {
      let resumed = try await daemon.connect()
      defer { resumed.close() }
      let notifications = DeadlineIterator(resumed.notifications.makeAsyncIterator())
      var document = try await resumed.call("state.at", ["revision": .int(Int64(watched))])["value"] ?? .null
      let start = try await resumed.call("state.watch", ["since": .int(Int64(watched))])
      let target = try await daemon.revision()
      var at = UInt64(start["revision"]?.intValue ?? 0)
      while at < target {
        let notification = try await notifications.next("cycle \(cycle): the resumed watch to reach revision \(target)")
        guard let patch = notification.params?["patch"] else { continue }
        try JSONPatch(json: patch).apply(to: &document)
        at = UInt64(notification.params?["revision"]?.intValue ?? 0)
      }
      let state = try await resumed.call("state.get")
      #expect(document == state["value"], "cycle \(cycle): the resumed watcher's state is the leader's")
    }

    /// Clients call `incrementTapped` on their counter, each `(daemon, counter)` on a
    /// connection of its own (`pause` between calls), until a call fails or `disrupt` returned; returns the revisions
    /// acknowledged, each with its counter, and what `disrupt` returned.
    static func callIntents<T: Sendable>(
      _ clients: [(SpawnedDaemon, Int)], pause: Duration = .zero, disrupt: @escaping @Sendable () async throws -> T
    ) async throws -> (acks: [(UInt64, Int)], disrupted: T) {
      let connections = try await clients.asyncMap { (daemon, counter) in (try await daemon.connect(), counter, daemon.socket) }
      defer { for (connection, _, _) in connections { connection.close() } }
      let stop = StopFlag()
      // The calls under way, for the message of a deadline that passed.
      let calling = LockedBox<[Int: String]>([:])
      do {
        return try await calls(connections, pause: pause, stop: stop, calling: calling, disrupt: disrupt)
      } catch {
        throw HarnessError("\(error); calls still under way: \(calling.value.values.sorted())")
      }
    }

    private static func calls<T: Sendable>(
      _ connections: [(ArborConnection, Int, String)], pause: Duration, stop: StopFlag, calling: LockedBox<[Int: String]>,
      disrupt: @escaping @Sendable () async throws -> T
    ) async throws -> (acks: [(UInt64, Int)], disrupted: T) {
      try await withDeadline("clients' calls to end after the leader was disrupted", seconds: 60) {
        try await withThrowingTaskGroup(of: [(UInt64, Int)].self) { group -> ([(UInt64, Int)], T) in
          for (connection, counter, socket) in connections {
            group.addTask {
              var acks: [(UInt64, Int)] = []
              while !stop.isSet {
                calling.update { $0[counter] = "counter \(counter) on \(socket) since \(Date())" }
                let reply = try? await connection.call(
                  "intent.call", ["target": .string("/counters/\(counter)/counter"), "intent": "incrementTapped"])
                calling.update { $0[counter] = nil }
                guard let reply, let revision = reply["revision"]?.intValue else { return acks }
                acks.append((UInt64(revision), counter))
                if pause > .zero { try? await Task.sleep(for: pause) }
              }
              return acks
            }
          }
          let disrupted = try await disrupt()
          stop.set()
          var all: [(UInt64, Int)] = []
          for try await acks in group { all += acks }
          return (all, disrupted)
        }
      }
    }

    /// Every acknowledged revision is in `daemon`'s journal, made by the call that was told
    /// of it; the journal has no gap; the state is what the journal produces.
    static func verify(_ ledger: Ledger, on daemon: SpawnedDaemon, counters: Int) async throws {
      let client = try await daemon.connect()
      defer { client.close() }
      let journal = try await CrashTests.journal(client, since: UInt64(counters))
      var counts = Array(repeating: 0, count: counters)
      var journalled: [UInt64: Int] = [:]
      for entry in journal {
        guard let counter = entry.counter else { continue }
        counts[counter] += 1
        journalled[entry.revision] = counter
      }
      let lost = ledger.acknowledged.filter { journalled[$0.key] != $0.value }
      #expect(lost.isEmpty, "acknowledged revisions missing from the journal or made by another call: \(lost.keys.sorted().prefix(10))")
      let state = try await client.call("state.get")
      #expect(try CrashTests.counts(in: state["value"] ?? .null) == counts, "the state is what the journal produces")
      let revisions = journal.map(\.revision)
      #expect(revisions == Array((UInt64(counters) + 1)...(revisions.last ?? UInt64(counters))), "the journal has no gap")
    }

    static func percentile(_ durations: [Duration], _ p: Double) -> Duration {
      let sorted = durations.sorted()
      guard !sorted.isEmpty else { return .zero }
      return sorted[min(sorted.count - 1, max(0, Int((Double(sorted.count) * p).rounded(.up)) - 1))]
    }

    static func percentiles(_ durations: [Duration]) -> String {
      func ms(_ duration: Duration) -> String { duration.formatted(.units(allowed: [.milliseconds])) }
      return "p50 \(ms(percentile(durations, 0.5))), p99 \(ms(percentile(durations, 0.99))), max \(ms(durations.max() ?? .zero)) (\(durations.count))"
    }
  }
}

/// A flag the clients of a cycle read before each call.
final class StopFlag: Sendable {
  private let value = Atomic<Bool>(false)
  var isSet: Bool { value.load(ordering: .relaxed) }
  func set() { value.store(true, ordering: .relaxed) }
}
