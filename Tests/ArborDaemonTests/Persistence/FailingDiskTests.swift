import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// Fail-stop when the journal cannot write, for each cause a deployment meets: a full file
/// system, one remounted read-only, another process holding SQLite's write lock, and the
/// database file moved away underneath. Intents are refused before they run, reads go on,
/// `daemon.status` says why; writes resume once the store takes them; and after `kill -9`
/// and a restart, every revision the daemon acknowledged or ran is there.
///
/// The state directory is a small tmpfs mounted by the test: root only.
@Suite(.serialized, .startsProcesses, .enabled(if: MountProbe.canMount, "mounting a tmpfs needs root (and a machine that lets it mount)"))
struct FailingDiskTests {
  /// Runs a command and fails the test when it fails.
  static func sh(_ arguments: [String]) async throws {
    let result = try await withDeadline("`\(arguments.joined(separator: " "))`") {
      try await run(.name(arguments[0]), arguments: Arguments(Array(arguments.dropFirst())), output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
    }
    guard result.terminationStatus == .exited(0) else {
      throw HarnessError("`\(arguments.joined(separator: " "))` failed: \(result.terminationStatus) \(result.standardError)")
    }
  }

  /// A directory whose `state` folder is a tmpfs of `size`, unmounted after `body`.
  static func withSmallDisk<T>(size: String = "3m", _ body: (String) async throws -> T) async throws -> T {
    let directory = try DaemonHarness.temporaryDirectory()
    let state = directory + "/state"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    try await sh(["mount", "-t", "tmpfs", "-o", "size=\(size)", "tmpfs", state])
    do {
      let value = try await body(directory)
      try await sh(["umount", state])
      return value
    } catch {
      try? await sh(["umount", "-l", state])
      throw error
    }
  }

  /// What the clients saw while the disk failed.
  struct Outcome: Sendable {
    /// Revisions of the intents that ran: acknowledged, or answered NotDurable (held).
    var ran = 0
    var acknowledged: [UInt64] = []
    var notDurable = 0
    var refused: JSONValue?
  }

  /// Increments row 0 until an intent is refused before it ran.
  static func incrementUntilRefused(_ client: ArborConnection, limit: Int = 20_000) async throws -> Outcome {
    var outcome = Outcome()
    for _ in 0..<limit {
      do {
        let reply = try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        outcome.ran += 1
        outcome.acknowledged.append(UInt64(reply["revision"]?.intValue ?? -1))
      } catch {
        switch error.rpcError?.name {
        case "org.arbor.NotDurable":
          outcome.ran += 1
          outcome.notDurable += 1
        case "org.arbor.WritesRefused":
          outcome.refused = error.rpcError?.json
          return outcome
        default:
          throw error
        }
      }
    }
    throw HarnessError("\(limit) intents and none was refused: \(outcome.acknowledged.count) acknowledged")
  }

  /// A root watch on its own connection: the revisions of the `state.changed` it got.
  final class Watcher: Sendable {
    final class Seen: Sendable {
      let revisions = Mutex<[UInt64]>([])
    }

    let connection: ArborConnection
    let seen = Seen()
    private let reader: Task<Void, Never>

    init(_ daemon: DaemonUnderTest) async throws {
      connection = try await daemon.connect()
      _ = try await connection.call("state.watch")
      let notifications = connection.notifications
      let seen = self.seen
      reader = Task {
        for await notification in notifications where notification.method == "state.changed" {
          if let revision = notification.params?["revision"]?.intValue { seen.revisions.withLock { $0.append(UInt64(revision)) } }
        }
      }
    }

    var newest: UInt64 { seen.revisions.withLock { $0.max() ?? 0 } }

    deinit { reader.cancel() }
  }

  static func count(_ client: ArborConnection) async throws -> (revision: Int64, count: Int64) {
    let state = try await client.call("state.get", ["path": "/counters/0/counter/count"])
    return (state["revision"]?.intValue ?? -1, state["value"]?.intValue ?? -1)
  }

  /// The common course: the disk fails by `fail`, intents are refused, the state stands
  /// still; the disk recovers by `recover`, writes resume; kill -9 and a restart keep all.
  func failAndRecover(
    cause: String, arguments: [String] = ["--fsync", "always"], fail: @escaping @Sendable (String) async throws -> Void,
    recover: @escaping @Sendable (String) async throws -> Void
  ) async throws {
    try await Self.withSmallDisk { directory in
      // systemd's status line, as a listener of our own receives it.
      let notify = try NotifyListener(path: directory + "/notify.sock")
      defer { notify.close() }
      let (before, status) = try await withDaemon(
        arguments: arguments + ["--status-interval", "0.1"], directory: directory, environment: ["NOTIFY_SOCKET": notify.path]
      ) { daemon, execution -> (Int64, Int64) in
        let client = try await daemon.connect()
        try await client.call("intent.call", ["intent": "addButtonTapped"])
        for _ in 0..<10 { try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
        let watcher = try await Watcher(daemon)
        try await fail(daemon.stateDirectory)
        let outcome = try await Self.incrementUntilRefused(client)
        let refused = try #require(outcome.refused)
        #expect(refused["code"] == .int(Int64(1016)))
        #expect(refused["data"]?["cause"] == .string(cause), "\(refused)")
        print("\(cause): \(outcome.ran) intents ran after the failure began (\(outcome.notDurable) answered NotDurable), then: \(refused["message"]?.stringValue ?? "")")
        // Refused before it runs: the state stands still, reads go on.
        let still = try await Self.count(client)
        for _ in 0..<5 {
          let error = await #expect(throws: ArborClientError.self) {
            try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
          }
          #expect(error?.rpcError?.is(.writesRefused) == true)
        }
        #expect(try await Self.count(client) == still, "a refused intent changed the state")
        #expect(still.count == 10 + Int64(outcome.ran), "every intent that ran is in the state")
        let journal = try await client.call("daemon.status")["journal"]
        #expect(journal?["writes"] == "refused")
        #expect(journal?["refusal"]?["cause"] == .string(cause))
        // Under --fsync always, watchers saw only what the disk has.
        let written = UInt64(journal?["writtenRevision"]?.intValue ?? -1)
        if arguments.contains("always") {
          #expect(watcher.newest <= written, "a watcher saw revision \(watcher.newest); the disk has \(written)")
        }
        try await eventually("STATUS= to say why writes are refused") {
          notify.messages.last { $0.hasPrefix("STATUS=") }?.hasPrefix("STATUS=WRITES REFUSED (\(cause))") == true
        }
        // The disk comes back: writes resume by themselves.
        try await recover(daemon.stateDirectory)
        try await eventually("writes to be accepted again", seconds: 20) {
          try await client.call("daemon.status")["journal"]?["writes"] == "accepted"
        }
        let resumed = try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        let after = try await Self.count(client)
        #expect(resumed["revision"]?.intValue == after.revision)
        try await eventually("the watcher to see revision \(after.revision)") { watcher.newest == UInt64(after.revision) }
        if !arguments.contains("always") {
          // Under batch the reply comes before the disk: wait for it before the kill.
          try await eventually("revision \(after.revision) to be written") {
            try await client.call("daemon.status")["journal"]?["writtenRevision"]?.intValue == after.revision
          }
        }
        #expect(daemon.log.contains("the journal writes again"), "\(daemon.log.suffix(2000))")
        try await eventually("STATUS= to stop saying writes are refused") {
          notify.messages.last { $0.hasPrefix("STATUS=") }?.hasPrefix("STATUS=revision") == true
        }
        try execution.send(signal: .kill)
        return (after.revision, after.count)
      }
      #expect(status == .signaled(9))
      // Everything the daemon ran before the kill was written: nothing is lost.
      let (restored, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
        try await Self.count(try await daemon.connect())
      }
      #expect(restored.revision == before.0 && restored.count == before.1, "before the kill \(before), after the restart \(restored)")
    }
  }

  /// Fills what is left of the file system of `state`.
  @Sendable static func fill(_ state: String) async throws {
    guard FileManager.default.createFile(atPath: state + "/filler", contents: nil),
      let filler = FileHandle(forWritingAtPath: state + "/filler")
    else { throw HarnessError("cannot create \(state)/filler") }
    let chunk = Data(count: 64 << 10)
    while (try? filler.write(contentsOf: chunk)) != nil {}
    try? filler.close()
  }

  /// Frees what ``fill(_:)`` took.
  @Sendable static func free(_ state: String) async throws {
    try FileManager.default.removeItem(atPath: state + "/filler")
  }

  @Test func aFullDiskRefusesWritesUntilSpaceIsFreed() async throws {
    try await failAndRecover(cause: "full", fail: Self.fill, recover: Self.free)
  }

  /// Linux refuses to remount a file system read-only while a process has files open on
  /// it for writing, so the read-only case is the one deployments meet: ext4 remounting
  /// itself read-only after an error (`errors=remount-ro`), triggered here through its
  /// `trigger_fs_error` knob on a loop device. Such a file system takes no writes until it
  /// is checked and mounted again, so the daemon is killed, the disk repaired, and the
  /// restart must find every acknowledged revision.
  /// Under `--fsync batch` replies come before the disk: what ran before the failure was
  /// found is held, written once space is freed, and kept.
  @Test func aFullDiskUnderFsyncBatchHoldsWhatRanAndWritesItOnceSpaceIsFreed() async throws {
    try await failAndRecover(cause: "full", arguments: ["--fsync", "batch", "--fsync-window", "20"], fail: Self.fill, recover: Self.free)
  }

  @Test(.enabled(if: MountProbe.canMountExt4Loop, "needs loop devices and mkfs.ext4"))
  func anExt4RemountedReadOnlyAfterAnErrorRefusesWritesAndLosesNothingAcknowledged() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let image = directory + "/disk.img"
    let state = directory + "/state"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    try await Self.sh(["truncate", "-s", "32M", image])
    try await Self.sh(["mkfs.ext4", "-q", image])
    try await Self.sh(["mount", "-o", "loop,errors=remount-ro", image, state])
    defer { _ = try? FileManager.default.removeItem(atPath: image) }
    do {
      let device = try await run(.name("findmnt"), arguments: ["-n", "-o", "SOURCE", state], output: .string(limit: 4096), error: .discarded)
        .standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
      let knob = "/sys/fs/ext4/\((device as NSString).lastPathComponent)/trigger_fs_error"
      guard FileManager.default.fileExists(atPath: knob) else {
        print("skipped: this kernel has no \(knob) to make ext4 remount itself read-only")
        try await Self.sh(["umount", state])
        return
      }
      let arguments = ["--fsync", "always"]
      let (acknowledged, status) = try await withDaemon(arguments: arguments, directory: directory) { daemon, execution -> Int in
        let client = try await daemon.connect()
        try await client.call("intent.call", ["intent": "addButtonTapped"])
        for _ in 0..<10 { try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"]) }
        let watcher = try await Watcher(daemon)
        try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        try await eventually("the watcher to see revision 12") { watcher.newest == 12 }
        try "1".write(toFile: knob, atomically: false, encoding: .utf8)
        let outcome = try await Self.incrementUntilRefused(client)
        let refused = try #require(outcome.refused)
        #expect(refused["data"]?["cause"] == "readOnly", "\(refused)")
        print("readOnly: \(outcome.ran) intents ran after the failure began (\(outcome.notDurable) answered NotDurable), then: \(refused["message"]?.stringValue ?? "")")
        let still = try await Self.count(client)
        let error = await #expect(throws: ArborClientError.self) {
          try await client.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
        }
        #expect(error?.rpcError?.is(.writesRefused) == true)
        #expect(try await Self.count(client) == still, "a refused intent changed the state")
        #expect(try await client.call("daemon.status")["journal"]?["writes"] == "refused")
        // The intent whose write failed ran in memory; no watcher saw it, and it is lost.
        #expect(watcher.newest == 12 + UInt64(outcome.acknowledged.count), "a watcher saw a revision the disk does not have")
        try execution.send(signal: .kill)
        return 11 + outcome.acknowledged.count
      }
      #expect(status == .signaled(9))
      try await Self.sh(["umount", state])
      // e2fsck exits 1 when it repaired something: both are fine here.
      _ = try await run(.name("e2fsck"), arguments: ["-fy", image], output: .discarded, error: .discarded)
      try await Self.sh(["mount", "-o", "loop", image, state])
      let (restored, _) = try await withDaemon(arguments: arguments, directory: directory) { daemon, _ in
        try await Self.count(try await daemon.connect())
      }
      #expect(restored.count == Int64(acknowledged), "every acknowledged increment is kept, and only those: \(restored) for \(acknowledged)")
      try await Self.sh(["umount", state])
    } catch {
      try? await Self.sh(["umount", "-l", state])
      throw error
    }
  }

  @Test func theDatabaseMovedAwayRefusesWritesUntilItIsBack() async throws {
    try await failAndRecover(cause: "replaced") { state in
      try FileManager.default.moveItem(atPath: state + "/arbor.sqlite", toPath: state + "/aside.sqlite")
    } recover: { state in
      try FileManager.default.moveItem(atPath: state + "/aside.sqlite", toPath: state + "/arbor.sqlite")
    }
  }

  @Test func anotherProcessHoldingTheWriteLockRefusesWritesUntilItLetsGo() async throws {
    let holder = LockHolder()
    try await failAndRecover(cause: "busy") { state in
      try await holder.start(database: state + "/arbor.sqlite")
    } recover: { _ in
      try await holder.stop()
    }
  }
}

/// A Python process that holds an SQLite database's write lock (`BEGIN IMMEDIATE`) until it
/// reads a line (or the end) on its standard input.
///
/// It is told with a line rather than only by closing the pipe: a process another test starts
/// meanwhile may inherit the pipe's writing end, and then the end would not come until that
/// process exits (a daemon of `TakeoverTests` did, in a CI run: 20 s and no end).
final class LockHolder: @unchecked Sendable {
  // Unchecked: one test uses it, start then stop, in order.
  private var process: Process?
  private var input: Pipe?

  func start(database: String) async throws {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = [
      "-c",
      "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); sys.stdin.readline(); c.execute('ROLLBACK')",
      database,
    ]
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    self.process = process
    self.input = input
    let handle = output.fileHandleForReading
    try await withDeadline("python3 to take the write lock") {
      // Read on a thread of its own: a blocking read in a task would hold a pool thread
      // until python3 has started and printed.
      let line = await withCheckedContinuation { (continuation: CheckedContinuation<Data, Never>) in
        Thread.detachNewThread { continuation.resume(returning: handle.availableData) }
      }
      guard String(decoding: line, as: UTF8.self).contains("locked") else { throw HarnessError("python3 said \(line)") }
    }
  }

  func stop() async throws {
    try? input?.fileHandleForWriting.write(contentsOf: Data("release\n".utf8))
    try? input?.fileHandleForWriting.close()
    guard let process else { return }
    try await withDeadline("python3 to let go of the write lock") {
      while process.isRunning { try await Task.sleep(for: .milliseconds(10)) }
    }
  }
}

/// What this machine lets the tests mount.
enum MountProbe {
  /// Whether this process may mount file systems: tried once with a 1 MB tmpfs.
  static let canMount: Bool = {
    guard getuid() == 0 else { return false }
    var template = Array("/tmp/arbor-mount-probe-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { return false }
    let directory = String(cString: made)
    defer { rmdir(directory) }
    guard mount("tmpfs", directory, "tmpfs", 0, "size=1m") == 0 else { return false }
    umount2(directory, 0)
    return true
  }()

  /// Whether ext4 on a loop device can be made here (for the read-only remount).
  static let canMountExt4Loop: Bool = {
    FileManager.default.fileExists(atPath: "/dev/loop-control") && FileManager.default.fileExists(atPath: "/sys/fs/ext4")
      && ["/usr/sbin/mkfs.ext4", "/sbin/mkfs.ext4"].contains { FileManager.default.isExecutableFile(atPath: $0) }
  }()
}
