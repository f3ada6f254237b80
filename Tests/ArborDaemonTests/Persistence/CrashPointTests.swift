import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// What a crash between the journal's commit and the replies can lose, measured per
/// `--fsync` policy: the daemon kills itself with SIGKILL right after the SQLite
/// transaction holding a chosen revision commits (`ARBOR_TEST_KILL_AFTER_COMMIT`), while
/// four clients increment counters; a restart shows what was kept.
///
/// `ARBOR_CRASH_POINT_CYCLES` sets the cycles per policy (4 by default).
@Suite(.serialized, .startsProcesses) struct CrashPointTests {
  static var cycles: Int { ProcessInfo.processInfo.environment["ARBOR_CRASH_POINT_CYCLES"].flatMap(Int.init) ?? 4 }

  struct Figures: CustomStringConvertible {
    var cycles = 0
    var acknowledged = 0
    var lost = 0
    var mostLostInACycle = 0
    var keptUnacknowledged = 0
    /// How long before the last reply of its cycle the oldest lost reply came.
    var oldestLostAge = Duration.zero

    var description: String {
      "\(cycles) crashes, \(acknowledged) acknowledged, \(lost) of them lost (at most \(mostLostInACycle) in one crash; the oldest lost reply came \(oldestLostAge.formatted(.units(allowed: [.milliseconds]))) before the last reply), \(keptUnacknowledged) kept without a reply"
    }
  }

  func measure(fsync: String) async throws -> Figures {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", fsync, "--fsync-window", "100", "--history", "1000000"]
    var figures = Figures()
    // A first life makes the counters and writes them.
    var (revision, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, _ -> UInt64 in
      let client = try await daemon.connect()
      for _ in 0..<CrashTests.counters { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
      try await eventually("the counters to be written") {
        try await client.call("daemon.status")["journal"]?["writtenRevision"] == .int(Int64(CrashTests.counters))
      }
      return UInt64(CrashTests.counters)
    }
    for cycle in 0..<Self.cycles {
      let crashAt = revision + UInt64.random(in: 200...800)
      let (seen, status) = try await withDaemon(
        arguments: arguments, directory: directory, environment: ["ARBOR_TEST_KILL_AFTER_COMMIT": "\(crashAt)"]
      ) { daemon, _ in
        try await CrashTests.callUntilKilled(daemon: daemon) {}
      }
      #expect(status == .signaled(9), "cycle \(cycle): the daemon was to kill itself after revision \(crashAt), it ended with \(status)")
      let (journal, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
        let client = try await daemon.connect()
        let journal = try await CrashTests.journal(client, since: revision)
        let state = try await client.call("state.get")
        #expect(state["revision"]?.intValue == Int64(journal.last?.revision ?? revision), "cycle \(cycle): the state is at the journal's newest revision")
        return journal
      }
      let kept = Set(journal.map(\.revision))
      let newest = journal.last?.revision ?? revision
      // The journal is a prefix of what the daemon committed: no holes.
      #expect(journal.map(\.revision) == Array((revision + 1)...max(revision + 1, newest)).prefix(journal.count).map { $0 }, "cycle \(cycle): the journal has holes")
      #expect(newest >= crashAt, "cycle \(cycle): the daemon died after committing \(crashAt), and the journal ends at \(newest)")
      let acknowledged = seen.acknowledged.map(\.revision)
      let lost = acknowledged.filter { !kept.contains($0) }
      #expect(lost.allSatisfy { $0 > newest }, "cycle \(cycle): a lost revision lies inside the kept prefix")
      figures.cycles += 1
      figures.acknowledged += acknowledged.count
      figures.lost += lost.count
      figures.mostLostInACycle = max(figures.mostLostInACycle, lost.count)
      figures.keptUnacknowledged += kept.subtracting(acknowledged).count
      if let last = seen.acknowledged.map(\.at).max(), let oldest = seen.acknowledged.filter({ !kept.contains($0.revision) }).map(\.at).min() {
        figures.oldestLostAge = max(figures.oldestLostAge, last - oldest)
      }
      revision = newest
    }
    print("crash after the commit, --fsync \(fsync): \(figures)")
    return figures
  }

  @Test func underFsyncAlwaysACrashAfterTheCommitLosesNothingAcknowledged() async throws {
    let figures = try await measure(fsync: "always")
    #expect(figures.lost == 0)
    // The crash came between the commit and the replies: what it held was kept unanswered.
    #expect(figures.keptUnacknowledged > 0, "\(figures)")
  }

  @Test func underFsyncBatchACrashLosesOnlyWhatFollowedTheLastCommit() async throws {
    let figures = try await measure(fsync: "batch")
    #expect(figures.acknowledged > 0)
  }

  @Test func underFsyncOffTheSame() async throws {
    let figures = try await measure(fsync: "off")
    #expect(figures.acknowledged > 0)
  }
}
