import Foundation
import ProcessSlots
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The harness's own promise: a daemon it spawns takes nothing of the test process but its
/// standard streams. A pipe another test opened meanwhile without close-on-exec would
/// otherwise stay open in the daemon, and whoever reads its other end would wait for an end
/// that comes only when the daemon exits (a CI run lost a test to that: `LockHolder`'s
/// python3 never saw its standard input close while a `TakeoverTests` daemon lived).
@Suite(.startsProcesses) struct SpawnedDaemonTests {
  @Test func aSpawnedDaemonHoldsNoDescriptorOfTheTestProcess() async throws {
    var ends: [Int32] = [0, 0]
    #expect(pipe(&ends) == 0, "a pipe for the test: errno \(errno)")
    defer { for end in ends { close(end) } }
    let daemon = try SpawnedDaemon()
    defer { daemon.kill() }
    try await daemon.start()
    let inherited = Self.pipes(of: daemon.processID).intersection(Self.pipes(of: getpid(), among: ends))
    #expect(inherited.isEmpty, "the daemon (pid \(daemon.processID)) holds the test's pipe: \(inherited.sorted())")
    #expect(!Self.pipes(of: getpid(), among: ends).isEmpty, "the test sees its own pipe in /proc/self/fd")
  }

  /// The `pipe:[inode]` names of a process's open descriptors (only of `descriptors`, when given).
  static func pipes(of process: pid_t, among descriptors: [Int32]? = nil) -> Set<String> {
    Set(
      ProcessDescriptors.targets(of: process).compactMap { descriptor, target -> String? in
        if let descriptors, !descriptors.contains(where: { String($0) == descriptor }) { return nil }
        guard let target, target.hasPrefix("pipe:") else { return nil }
        return target
      })
  }
}
