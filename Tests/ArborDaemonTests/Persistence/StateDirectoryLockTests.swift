import ArborClient
import ArborJSON
import ArborStore
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One daemon per state directory: a second `counterfactd` on the same `--state-dir` (with
/// a socket of its own) exits at once, naming the directory and the process that holds it,
/// and changes nothing there; the lock dies with its holder, even under `kill -9`.
@Suite(.startsProcesses) struct StateDirectoryLockTests {
  /// Every file in `directory` with its size and modification time.
  static func listing(_ directory: String) -> [String: String] {
    var listing: [String: String] = [:]
    for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
      var info = stat()
      guard stat(directory + "/" + name, &info) == 0 else { continue }
      listing[name] = "\(info.st_size) bytes, modified \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
    return listing
  }

  @Test func aSecondDaemonOnTheSameStateDirectoryExitsNamingTheHolderAndTouchesNothing() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await eventually("revision 1 to be written") {
        try await client.call("daemon.status")["journal"]?["writtenRevision"] == 1
      }
      let before = Self.listing(daemon.stateDirectory)
      let otherSocket = daemon.directory + "/second.sock"
      let second = try await withDeadline("the second daemon to exit", seconds: 10) {
        try await run(
          .path(.init(DaemonHarness.binary())),
          arguments: ["--socket", otherSocket, "--state-dir", daemon.stateDirectory],
          output: .discarded, error: .string(limit: 1 << 16))
      }
      #expect(second.terminationStatus != .exited(0))
      #expect(
        second.standardError.contains("the state directory \(daemon.stateDirectory) is in use by process \(daemon.pid)"),
        "\(second.standardError)")
      #expect(Self.listing(daemon.stateDirectory) == before, "the refused daemon changed the state directory")
      #expect(!FileManager.default.fileExists(atPath: otherSocket), "the refused daemon left a socket")
      // The first one goes on, and its writes are the only ones.
      let added = try await client.call("intent.call", ["intent": "addButtonTapped"])
      #expect(added["revision"] == 2)
    }
  }

  @Test func aKilledHolderLeavesNoStaleLock() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let (_, killed) = try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, execution in
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try execution.send(signal: .kill)
    }
    #expect(killed == .signaled(9))
    #expect(FileManager.default.fileExists(atPath: directory + "/state/\(StateDirectoryLock.fileName)"))
    let (state, _) = try await withDaemon(directory: directory) { daemon, _ in
      let lock = try String(contentsOfFile: daemon.stateDirectory + "/\(StateDirectoryLock.fileName)", encoding: .utf8)
      #expect(lock == "\(daemon.pid)\n", "the lock file names its holder")
      return try await daemon.connect().call("state.get")
    }
    #expect(state["value"]?["counters"]?.arrayValue?.count == 1)
  }

  @Test func theLockIsExclusiveWithinOneProcessToo() async throws {
    let directory = try DaemonHarness.temporaryDirectory() + "/state"
    let first = try StateDirectoryLock.acquire(directory)
    let refusal = #expect(throws: StateDirectoryLock.Refusal.self) { try StateDirectoryLock.acquire(directory) }
    #expect(refusal?.kind == .held(pid: getpid()))
    first.release()
    first.release()
    // Other tests start processes meanwhile: a child forked before it execs holds a copy of
    // the descriptor (and so the lock) for a moment. The lock comes back once it has.
    let again = try await withDeadline("the released lock to be free again") {
      while true {
        if let lock = try? StateDirectoryLock.acquire(directory) { return lock }
        try await Task.sleep(for: .milliseconds(10))
      }
    }
    again.release()
  }

  @Test func aStateDirectoryThatCannotBeMadeIsExplained() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    _ = FileManager.default.createFile(atPath: directory + "/plain", contents: Data())
    let result = try await withDeadline("the daemon to refuse") {
      try await run(
        .path(.init(DaemonHarness.binary())), arguments: ["--socket", directory + "/d.sock", "--state-dir", directory + "/plain/state"],
        output: .discarded, error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus != .exited(0))
    #expect(
      result.standardError.contains("cannot lock the state directory \(directory)/plain/state: \(directory)/plain exists and is not a directory"),
      "\(result.standardError)")
    #expect(!result.standardError.contains("NSCocoaErrorDomain"), "\(result.standardError)")
  }
}
