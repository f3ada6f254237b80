import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import PostgresTestServer
import ProcessSlots
import Subprocess
import Testing

extension DaemonsUnderLoad {
  /// The real daemon killed with SIGKILL at random moments while clients call intents, then
  /// restarted on the same state directory, again and again: every acknowledged revision is
  /// there, and the state is exactly what the journalled revisions produce.
  ///
  /// `ARBOR_CRASH_CYCLES` sets the number of cycles (20 by default).
  @Suite(.serialized, .startsProcesses) struct CrashTests {
    static var cycles: Int { ProcessInfo.processInfo.environment["ARBOR_CRASH_CYCLES"].flatMap(Int.init) ?? 20 }
    static let counters = 4

    /// What the clients of one cycle saw: each acknowledged revision with its counter and
    /// when its reply came, and the calls sent without a reply.
    struct Cycle: Sendable {
      var acknowledged: [(revision: UInt64, counter: Int, at: ContinuousClock.Instant)] = []
      var unanswered = Array(repeating: 0, count: CrashTests.counters)
      var killedAt = ContinuousClock.now
    }

    @Test func underFsyncAlwaysNothingAcknowledgedIsLost() async throws {
      let report = try await crashRepeatedly(fsync: "always")
      #expect(report.lost == 0, "acknowledged revisions lost: \(report.lost)")
      print("crash test, --fsync always: \(report.cycles) cycles, \(report.acknowledged) acknowledged intents, \(report.lost) lost")
      Self.checkRestarts(report)
    }

    /// The same, with the journal in PostgreSQL (`--store`): a reply waits for PostgreSQL's
    /// commit, and what was acknowledged is there after each kill.
    @Test func onPostgreSQLUnderFsyncAlwaysNothingAcknowledgedIsLost() async throws {
      let address = try await PostgresTestServer.newDatabase()
      let report = try await crashRepeatedly(fsync: "always", extra: ["--store", address])
      #expect(report.lost == 0, "acknowledged revisions lost: \(report.lost)")
      print("crash test, PostgreSQL, --fsync always: \(report.cycles) cycles, \(report.acknowledged) acknowledged intents, \(report.lost) lost")
    }

    /// Restarts stay as quick as the first ones however many crashes came before: each start
    /// replays a bounded journal (a start that replays more than `--snapshot-every` saves a
    /// snapshot first, and the running daemon saves one every `--snapshot-every` revisions).
    /// Checked on the work, the revisions each start replayed by its log, not on the time a
    /// start took: beside two busy loops and the rest of the suite, the last five starts
    /// once took 533 ms against 197 ms for the first five, with the same journal lengths.
    /// The cycles commit 3,500–5,100 revisions in all: without compaction the last starts
    /// would replay thousands.
    static func checkRestarts(_ report: Report) {
      let times = report.startTimes.dropFirst()  // the first start made a fresh tree
      guard times.count >= 10 else { return }
      func mean(_ slice: ArraySlice<Duration>) -> Duration { slice.reduce(.zero, +) / slice.count }
      let first = mean(times.prefix(5))
      let last = mean(times.suffix(5))
      print("crash test: start time, mean of the first 5 restarts \(first.formatted(.units(allowed: [.milliseconds]))), of the last 5 \(last.formatted(.units(allowed: [.milliseconds]))) (\(times.count) restarts); revisions replayed by each: \(report.replayed)")
      #expect(report.replayed.count == times.count, "each restart logged what it replayed")
      #expect(report.replayed.allSatisfy { $0 <= 2 * snapshotEvery }, "restarts replayed a growing journal: \(report.replayed)")
    }

    /// The crash tests' `--snapshot-every`.
    static let snapshotEvery = 1_000

    @Test func underFsyncBatchOnlyTheLastWindowCanBeLost() async throws {
      let window = 100
      let report = try await crashRepeatedly(fsync: "batch", extra: ["--fsync-window", "\(window)"])
      // A kill of the process leaves what SQLite handed to the OS: only revisions still
      // waiting for the window are lost. Those were acknowledged at most one window (plus
      // the time a write takes) before the kill.
      #expect(report.oldestLostAge < .milliseconds(window + 400), "a revision acknowledged \(report.oldestLostAge) before the kill was lost")
      print(
        "crash test, --fsync batch (window \(window) ms): \(report.cycles) cycles, \(report.acknowledged) acknowledged intents, \(report.lost) lost, "
          + "in \(report.cyclesWithLoss) cycles; the oldest lost reply came \(report.oldestLostAge) before the kill")
    }

    struct Report {
      /// From launching the daemon to its socket answering, per start.
      var startTimes: [Duration] = []
      /// The journalled revisions each restart replayed onto its snapshot, by its log.
      var replayed: [Int] = []
      var cycles = 0
      var acknowledged = 0
      var lost = 0
      var cyclesWithLoss = 0
      var oldestLostAge = Duration.zero
    }

    func crashRepeatedly(fsync: String, extra: [String] = []) async throws -> Report {
      let directory = try DaemonHarness.temporaryDirectory()
      let arguments = ["--fsync", fsync, "--history", "1000000", "--snapshot-every", "\(Self.snapshotEvery)"] + extra
      var report = Report()
      // The counts the last start found, and what the cycle after it saw.
      var counts: [Int]?
      var startRevision: UInt64 = 0
      var previous: Cycle?
      for cycle in 0...Self.cycles {
        let launched = ContinuousClock.now
        let (value, status) = try await withDaemon(arguments: arguments, directory: directory) { daemon, execution -> (Cycle, [Int], UInt64) in
          report.startTimes.append(ContinuousClock.now - launched)
          if cycle > 0, let restored = CompactionAfterCrashTests.restoreLine(daemon.log) { report.replayed.append(restored.replayed) }
          // On PostgreSQL a daemon started while the killed one's session lingers is a
          // standby first, and the killed one's last commits (sent before the kill, without
          // their replies) may land after it read the state: read it once this one leads, so
          // that those commits count in the cycle they belong to, not also in this one. A
          // standby that takes the lead closes its connections (its clients reconnect), so
          // each look is a connection of its own.
          try await eventually("cycle \(cycle): the daemon to lead its store") {
            guard let status = try? await daemon.connect().call("daemon.status") else { return false }
            return status["journal"]?["lead"]?["standby"] != true
          }
          let client = try await daemon.connect()
          if counts == nil {
            for _ in 0..<Self.counters { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
            // The counters must outlive the first kill, whatever the policy.
            try await eventually("the counters to be written") {
              (try await client.call("daemon.status")["journal"]?["writtenRevision"]?.intValue ?? 0) >= Int64(Self.counters)
            }
          }
          let state = try await client.call("state.get")
          let now = try Self.counts(in: state["value"] ?? .null)
          let revision = UInt64(try #require(state["revision"]?.intValue))
          if let before = counts, let previous {
            // The journal since the last start is exactly the acknowledged revisions plus
            // some of those that got no reply; the counts are what it produces.
            let journal = try await Self.journal(client, since: startRevision)
            #expect(journal.last?.revision == revision || journal.isEmpty && revision == startRevision, "cycle \(cycle): the state's revision is the journal's newest")
            var produced = before
            var journalled = Set<UInt64>()
            for entry in journal {
              #expect(entry.intent == "incrementTapped", "cycle \(cycle): revision \(entry.revision) was made by \(entry.intent)")
              guard let counter = entry.counter else { continue }
              produced[counter] += 1
              journalled.insert(entry.revision)
            }
            #expect(now == produced, "cycle \(cycle): the state is what the journal produces")
            let lost = previous.acknowledged.filter { !journalled.contains($0.revision) }
            let extra = journal.count - (previous.acknowledged.count - lost.count)
            #expect(extra <= previous.unanswered.reduce(0, +), "cycle \(cycle): \(extra) revisions beyond the acknowledged ones, \(previous.unanswered) calls unanswered")
            report.acknowledged += previous.acknowledged.count
            report.lost += lost.count
            if !lost.isEmpty {
              report.cyclesWithLoss += 1
              let oldest = lost.map { previous.killedAt - $0.at }.max() ?? .zero
              report.oldestLostAge = max(report.oldestLostAge, oldest)
            }
            report.cycles += 1
          }
          guard cycle < Self.cycles else { return (Cycle(), now, revision) }
          let outcome = try await Self.callUntilKilled(daemon: daemon) {
            try? await Task.sleep(for: .milliseconds(Int.random(in: 30...300)))
            try? execution.send(signal: .kill)
          }
          return (outcome, now, revision)
        }
        if cycle < Self.cycles { #expect(status == .signaled(9), "cycle \(cycle) ended with \(status)") }
        previous = value.0
        counts = value.1
        startRevision = value.2
      }
      return report
    }

    /// Four clients increment counters until the daemon is killed by `kill`.
    static func callUntilKilled(daemon: DaemonUnderTest, kill: @escaping @Sendable () async -> Void) async throws -> Cycle {
      let connections = try await (0..<counters).asyncMap { _ in try await daemon.connect() }
      return try await withDeadline("clients to stop once the daemon is killed", seconds: 30) {
        try await withThrowingTaskGroup(of: Cycle.self) { group in
          for (index, connection) in connections.enumerated() {
            group.addTask {
              var seen = Cycle()
              while true {
                let target = "/counters/\(index)/counter"
                seen.unanswered[index] += 1
                guard let reply = try? await connection.call("intent.call", ["target": .string(target), "intent": "incrementTapped"]),
                  let revision = reply["revision"]?.intValue
                else { return seen }
                seen.unanswered[index] -= 1
                seen.acknowledged.append((UInt64(revision), index, .now))
              }
            }
          }
          await kill()
          let killedAt = ContinuousClock.now
          var all = Cycle()
          for try await seen in group {
            all.acknowledged += seen.acknowledged
            for index in 0..<counters { all.unanswered[index] += seen.unanswered[index] }
          }
          all.killedAt = killedAt
          return all
        }
      }
    }

    struct Entry {
      var revision: UInt64
      var intent: String
      var counter: Int?
    }

    /// Every journalled revision after `since`, read page by page with `history.changes`.
    static func journal(_ client: ArborConnection, since: UInt64) async throws -> [Entry] {
      var entries: [Entry] = []
      var cursor: JSONValue = .int(Int64(since))
      while true {
        let page = try await client.call("history.changes", ["since": cursor, "limit": 500])
        guard case .array(let changes)? = page["changes"] else { throw HarnessError("no changes in \(page)") }
        for change in changes {
          let target = change["target"]?.stringValue ?? ""
          let counter = target.split(separator: "/").dropFirst().first.flatMap { Int($0) }
          entries.append(Entry(revision: UInt64(change["revision"]?.intValue ?? -1), intent: change["intent"]?.stringValue ?? "-", counter: counter))
        }
        guard let next = page["next"], next != .null else { return entries }
        cursor = next
      }
    }

    static func counts(in state: JSONValue) throws -> [Int] {
      guard case .array(let rows)? = state["counters"] else { throw HarnessError("no counters in \(state)") }
      return rows.map { Int($0["counter"]?["count"]?.intValue ?? -1) }
    }
  }
}

extension Sequence {
  func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
    var results: [T] = []
    for element in self { results.append(try await transform(element)) }
    return results
  }
}
