import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A daemon asked to stop (SIGTERM) stops accepting, lets the intents that run finish
/// (they are answered), saves, and exits 0, as soon as they are done: the socket server
/// is woken by the last intent's end, not by a poll.
@Suite(.startsProcesses) struct StopTests {
  @Test func sigtermLetsARunningIntentFinishAndKeepsItsWrite() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let release = directory + "/release-the-intent"
    var afterRelease = Duration.zero
    var waitedFor = Duration.zero
    let (_, status) = try await withDaemon(binary: DaemonHarness.fixtureBinary(), directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      let observer = try await daemon.connect()
      let reply = Task { try await client.call(.intentCall, ["intent": "finishWhenFileExists", "params": ["path": .string(release)]]) }
      try await eventually("the intent to be running") {
        try await observer.call(.status)["intentsInFlight"]?.intValue == 1
      }
      try execution.send(signal: .terminate)
      // The daemon waits for the intent: still running a while after the signal.
      let signalled = ContinuousClock.now
      try await Task.sleep(for: .milliseconds(300))
      #expect(Self.isRunning(daemon.pid), "the daemon stopped while an intent ran")
      waitedFor = ContinuousClock.now - signalled
      // Released: the intent ends, is answered, and the daemon exits right after.
      let released = ContinuousClock.now
      #expect(FileManager.default.createFile(atPath: release, contents: nil))
      let answered = try await withDeadline("the running intent's reply") { try await reply.value }
      #expect(answered["revision"] == 1, "\(answered)")
      try await withDeadline("the daemon to exit") {
        // Exited: gone, or a zombie until the harness collects its status.
        while Self.isRunning(daemon.pid) { try await Task.sleep(for: .milliseconds(5)) }
      }
      afterRelease = ContinuousClock.now - released
    }
    #expect(status == .exited(0))
    // Woken when the intent ended: well under the 10 s the stop allows running intents.
    #expect(afterRelease < .seconds(5), "the daemon exited \(afterRelease) after the intent could end")
    print(
      "SIGTERM with an intent running: still serving it after \(waitedFor.formatted(.units(allowed: [.milliseconds]))), exited \(afterRelease.formatted(.units(allowed: [.milliseconds]))) after it could end"
    )
    // The write the intent made while the daemon stopped is kept.
    try await withDaemon(binary: DaemonHarness.fixtureBinary(), directory: directory) { daemon, _ in
      let client = try await daemon.connect()
      let state = try await client.call(.stateGet)
      #expect(state["value"]?["value"] == 100, "\(state)")
      #expect(state["revision"] == 1)
    }
  }

  /// Whether `pid` runs: it exists and is not a zombie (state `Z` in `/proc/PID/stat`).
  static func isRunning(_ pid: Int32) -> Bool {
    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = stat.lastIndex(of: ")")
    else { return false }
    return stat[stat.index(after: close)...].trimmingCharacters(in: .whitespaces).first != "Z"
  }
}
