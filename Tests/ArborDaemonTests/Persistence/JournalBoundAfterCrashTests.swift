import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The journal's bound holds right after every start, however the lives before it ended:
/// lives killed with SIGKILL before a due snapshot leave a journal longer than `--history` +
/// `--snapshot-every`, and the start compacts it before it serves.
///
/// `ARBOR_CRASH_CYCLES=N` runs N lives instead of 8.
@Suite(.startsProcesses) struct JournalBoundAfterCrashTests {
  static let history = 5
  static let snapshotEvery = 20
  static let perLife = 12
  static let lives = ProcessInfo.processInfo.environment["ARBOR_CRASH_CYCLES"].flatMap { Int($0) } ?? 8

  @Test func theJournalIsWithinItsBoundRightAfterEachStart() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = [
      "--fsync", "always", "--history", "\(Self.history)", "--snapshot-every", "\(Self.snapshotEvery)", "--snapshot-interval", "3600",
    ]
    let bound = Int64(Self.history + Self.snapshotEvery)
    var spans: [Int64] = []
    for life in 0..<Self.lives {
      let (span, status) = try await withDaemon(arguments: arguments, directory: directory) { [spans] daemon, execution -> Int64 in
        let client = try await daemon.connect()
        // Right after the start, before this life writes anything.
        let status = try await withDeadline("daemon.status after start \(life + 1)") { try await client.call("daemon.status") }
        let revision = try #require(status["revision"]?.intValue)
        let oldest = try #require(status["journal"]?["oldestRevision"]?.intValue, "\(status)")
        #expect(revision == (life == 0 ? 0 : Int64(1 + life * Self.perLife)), "under --fsync always every acknowledged revision is kept")
        #expect(revision - oldest <= bound, "start \(life + 1): revisions \(oldest)...\(revision), more than \(bound) (earlier starts: \(spans))\n\(daemon.log)")
        // What the status calls the oldest revision can be read back.
        let old = try await withDeadline("state.at \(oldest)") { try await client.call("state.at", ["revision": .int(oldest)]) }
        #expect(old["revision"]?.intValue == oldest)
        if life == 0 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
        for _ in 0..<Self.perLife {
          _ = try await withDeadline("an increment") {
            try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
          }
        }
        try execution.send(signal: .kill)
        return revision - oldest
      }
      spans.append(span)
      #expect(status == .signaled(9))
    }
  }
}
