import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// Compaction survives crashes: lives too short to reach `--snapshot-every` on their own
/// still keep the journal that a start replays bounded, because a start that replays more
/// than `--snapshot-every` revisions saves a snapshot first.
@Suite(.startsProcesses) struct CompactionAfterCrashTests {
  static let snapshotEvery = 50
  static let perLife = 40
  static let lives = 6

  /// The numbers of the restore line: the snapshot's revision and how many were replayed.
  static func restoreLine(_ log: String) -> (snapshot: Int, replayed: Int)? {
    guard let line = log.split(separator: "\n").last(where: { $0.contains("restored AppModel at revision") }),
      let range = line.range(of: "the snapshot of revision ")
    else { return nil }
    let words = line[range.upperBound...].split(separator: " ")
    guard words.count > 2, let snapshot = Int(words[0]), let replayed = Int(words[2]) else { return nil }
    return (snapshot, replayed)
  }

  @Test func shortLivesKilledWithSigkillStillCompact() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let arguments = ["--fsync", "always", "--snapshot-every", "\(Self.snapshotEvery)", "--snapshot-interval", "3600", "--history", "10"]
    var replays: [Int] = []
    for life in 0..<Self.lives {
      let (replayed, status) = try await withDaemon(arguments: arguments, directory: directory) { daemon, execution -> Int? in
        let client = try await daemon.connect()
        if life == 0 { try await client.call("intent.call", ["intent": "addButtonTapped"]) }
        for _ in 0..<Self.perLife {
          try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        }
        let restored = Self.restoreLine(daemon.log)
        try execution.send(signal: .kill)
        return restored?.replayed
      }
      #expect(status == .signaled(9))
      if let replayed { replays.append(replayed) }
    }
    let (final, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, _ -> (JSONValue, (snapshot: Int, replayed: Int)?) in
      let client = try await daemon.connect()
      let status = try await client.call("daemon.status")
      return (status, Self.restoreLine(daemon.log))
    }
    let (status, restored) = final
    let revision = try #require(status["revision"]?.intValue)
    #expect(revision == Int64(1 + Self.lives * Self.perLife), "under --fsync always every acknowledged revision is kept")
    let line = try #require(restored, "no restore line")
    replays.append(line.replayed)
    // Each start replays at most what one life wrote after the last snapshot: never the
    // whole journal of every life.
    for (life, replayed) in replays.enumerated() {
      #expect(replayed <= Self.snapshotEvery + Self.perLife + 1, "start \(life + 1) replayed \(replayed) revisions: \(replays)")
    }
    let snapshotRevision = try #require(status["journal"]?["snapshotRevision"]?.intValue)
    #expect(Int(snapshotRevision) == line.snapshot || snapshotRevision > Int64(line.snapshot), "daemon.status names a snapshot the store holds")
    #expect(revision - snapshotRevision <= Int64(Self.snapshotEvery + Self.perLife + 1))
  }
}
