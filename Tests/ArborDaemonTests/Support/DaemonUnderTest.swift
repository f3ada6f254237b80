import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A real `counterfactd` started for a test, on a socket and a state directory of its own.
struct DaemonUnderTest: Sendable {
  let directory: String
  let socket: String
  let stateDirectory: String
  let logPath: String
  let pid: Int32

  /// A new connection, with a deadline.
  func connect() async throws -> ArborConnection {
    let socket = self.socket
    return try await withDeadline("a connection to \(socket)") { try await ArborConnection.connect(to: socket) }
  }

  /// The daemon's standard error so far.
  var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

  /// How many file descriptors the daemon has open.
  func openFileDescriptors() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
  }

  /// What each of the daemon's file descriptors is (`/proc/PID/fd`), for a failure message.
  func describeFileDescriptors() -> String {
    ProcessDescriptors.targets(of: pid).sorted { (Int($0.descriptor) ?? 0) < (Int($1.descriptor) ?? 0) }.map {
      "\($0.descriptor) → \($0.target ?? "?")"
    }.joined(separator: ", ")
  }

  /// The daemon's resident memory in kB (`VmRSS`).
  func residentKilobytes() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
      let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
    else { return -1 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
  }
}

enum DaemonHarness {
  /// `$ARBOR_COUNTERFACTD`, else `counterfactd` next to the test binary, else in `.build/debug`.
  static func binary() -> String {
    if let configured = ProcessInfo.processInfo.environment["ARBOR_COUNTERFACTD"], !configured.isEmpty { return configured }
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("counterfactd").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/counterfactd").path
  }

  /// `arbor-fixture-daemon`, next to the test binary or in `.build/debug`.
  static func fixtureBinary() -> String {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arbor-fixture-daemon").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/arbor-fixture-daemon").path
  }

  /// A new temporary directory with a short path (socket paths are limited to 107 bytes).
  static func temporaryDirectory() throws -> String {
    var template = Array("/tmp/arbor-e2e-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw HarnessError("mkdtemp failed: \(errno)") }
    // Other users reach the socket only through its own mode (0660), never the folder's.
    chmod(made, 0o755)
    let path = String(cString: made)
    TemporaryDirectories.remember(path)
    return path
  }
}

struct HarnessError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Starts `counterfactd` with `arguments` in `directory` (a new one unless given), waits
/// until it listens, runs `body`, then stops it with SIGTERM unless `body` already stopped
/// it, and returns what `body` returned with the daemon's exit status.
///
/// Every wait has a deadline; if `body` throws, the daemon is killed. A body that runs past
/// `watchdogSeconds` (a call whose reply never comes) fails the test with the daemon's
/// status and log, and the daemon is killed so that the waiting calls end.
@discardableResult
func withDaemon<T: Sendable>(
  binary: String = DaemonHarness.binary(), arguments: [String] = [], directory: String? = nil, environment: [String: String] = [:],
  watchdogSeconds: Int = DaemonHarness.watchdogSeconds,
  _ body: (DaemonUnderTest, Execution<NoInput, DiscardedOutput, FileDescriptorOutput>) async throws -> T
) async throws -> (value: T, status: TerminationStatus) {
  ProcessSlots.expectHeld("\(URL(fileURLWithPath: binary).lastPathComponent)")
  let directory = try directory ?? DaemonHarness.temporaryDirectory()
  let socket = directory + "/d.sock"
  let state = directory + "/state"
  let logPath = directory + "/daemon.log"
  let log = try FileDescriptor.open(
    FilePath(logPath), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
  let configuration = Configuration(
    executable: .path(FilePath(binary)),
    arguments: Arguments(["--socket", socket, "--state-dir", state] + arguments),
    environment: .inherit.updating(
      Dictionary(uniqueKeysWithValues: environment.compactMap { key, value in Environment.Key(rawValue: key).map { ($0, value) } })))
  let result = try await run(configuration, input: .none, output: .discarded, error: .fileDescriptor(log, closeAfterSpawningProcess: true)) {
    execution -> Result<T, any Error> in
    let daemon = DaemonUnderTest(
      directory: directory, socket: socket, stateDirectory: state, logPath: logPath, pid: execution.processIdentifier.value)
    let watchdog = DaemonHarness.watch(daemon, for: watchdogSeconds)
    defer { watchdog.cancel() }
    do {
      try await DaemonHarness.waitUntilListening(socket)
      let value = try await body(daemon, execution)
      if kill(daemon.pid, 0) == 0 { try? execution.send(signal: .terminate) }
      DaemonHarness.killIfStillRunning(daemon.pid, after: 20)
      return .success(value)
    } catch {
      // What the daemon says of itself, for the failure: a call that timed out names only
      // itself.
      if kill(daemon.pid, 0) == 0 {
        Issue.record("the test failed (\(error)) with the daemon (pid \(daemon.pid)) still running: it is killed.\n\(await DaemonHarness.describe(daemon))")
      }
      try? execution.send(signal: .kill)
      return .failure(error)
    }
  }
  return (try result.closureResult.get(), result.terminationStatus)
}

extension DaemonHarness {
  /// How long a `withDaemon` body may run before its watchdog fails the test:
  /// `$ARBOR_DAEMON_WATCHDOG` seconds, else 300.
  static let watchdogSeconds = ProcessInfo.processInfo.environment["ARBOR_DAEMON_WATCHDOG"].flatMap { Int($0) } ?? 300

  /// After `seconds`, unless cancelled first: records an issue with the daemon's status
  /// (asked on a new connection, 5 s at most) and the end of its log, then kills it, so
  /// that a call whose reply never comes ends with a failure that says where it stood.
  static func watch(_ daemon: DaemonUnderTest, for seconds: Int) -> Task<Void, Never> {
    Task {
      do { try await Task.sleep(for: .seconds(seconds)) } catch { return }
      Issue.record("the test's calls on the daemon (pid \(daemon.pid)) ran past \(seconds) s: it is killed.\n\(await describe(daemon))")
      kill(daemon.pid, SIGKILL)
    }
  }

  /// The daemon's `daemon.status` (asked on a new connection, 5 s at most) and the end of
  /// its log, for a failure message.
  static func describe(_ daemon: DaemonUnderTest) async -> String {
    let status: String
    do {
      let socket = daemon.socket
      status = try await withDeadline("daemon.status for the failure message", seconds: 5) {
        let connection = try await ArborConnection.connect(to: socket)
        defer { connection.close() }
        return try await connection.call("daemon.status").jsonString
      }
    } catch {
      status = "no status: \(error)"
    }
    return """
      status: \(status)
      log (the last 6,000 characters):
      \(daemon.log.suffix(6_000))
      """
  }

  /// Waits (30 s at most) until a daemon accepts a connection on `socket`.
  ///
  /// It connects only once the socket's file exists, and looks again every 10 ms at first,
  /// then less and less often (up to every 100 ms): a slow start is not met with a
  /// hundred failed connections a second on the event loops the tests share.
  static func waitUntilListening(_ socket: String) async throws {
    try await withDeadline("counterfactd to listen on \(socket)", seconds: 30) {
      var pause = 10
      while true {
        // The probe waits (briefly) for the daemon to close it: the daemon's loops accept
        // in parallel, so a probe only connected could still be counted among the test's
        // own clients after they were.
        if FileManager.default.fileExists(atPath: socket), let probe = try? RawSocket(path: socket) {
          await probe.finishAndAwaitClose(within: 2)
          return
        }
        try await Task.sleep(for: .milliseconds(pause))
        pause = min(100, pause * 3 / 2 + 1)
      }
    }
  }

  /// A stop that does not finish in time becomes a kill, so that the test ends and says so
  /// (its status is then "signaled 9", not "exited 0").
  static func killIfStillRunning(_ pid: Int32, after seconds: Int) {
    Thread.detachNewThread {
      for _ in 0..<(seconds * 20) {
        if kill(pid, 0) != 0 { return }
        usleep(50_000)
      }
      kill(pid, SIGKILL)
    }
  }
}
