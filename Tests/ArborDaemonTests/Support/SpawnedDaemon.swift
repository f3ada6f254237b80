import ArborClient
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A counterfactd started with posix_spawn, so that it can be killed and started again on
/// the same directory any number of times.
///
/// `store` is a PostgreSQL address; without one the daemon keeps its state in the directory's
/// SQLite file. `launcher` runs it through another program that execs it in place (`ip netns exec NS`,
/// for a daemon in a network namespace of its own).
final class SpawnedDaemon: Sendable {
  let directory: String
  let store: String?
  let launcher: [String]
  /// Variables set for the daemon beside the test process's own.
  let environment: [String: String]
  /// Options given after the test's own (`--max-connections 2048`).
  let options: [String]
  private let pid = Mutex<pid_t>(0)

  /// The daemon's binary (the one under test unless given).
  let binary: String

  init(
    store: String? = nil, launcher: [String] = [], environment: [String: String] = [:], options: [String] = [], binary: String? = nil
  ) throws {
    self.directory = try DaemonHarness.temporaryDirectory()
    self.store = store
    self.launcher = launcher
    self.environment = environment
    self.options = options
    self.binary = binary ?? DaemonHarness.binary()
  }

  var socket: String { directory + "/d.sock" }

  /// Starts the daemon and waits until its socket answers. With `passing`, it gets that
  /// descriptor as file descriptor 3 with `LISTEN_FDS=1`, `LISTEN_FDNAMES=name` and its own
  /// pid as `LISTEN_PID`, as systemd passes a socket (a shell sets the pid and execs it).
  func start(passing: (descriptor: Int32, name: String)? = nil) async throws {
    try await start(passingAll: passing.map { [(name: $0.name, descriptor: $0.descriptor)] } ?? [])
  }

  /// Starts the daemon with `passed` as file descriptors 3, 4, … in order, named in
  /// `LISTEN_FDNAMES`, as systemd passes what its descriptor store keeps.
  /// `passed` as ``NotifyListener/storedDescriptors`` lists them.
  func start(passingAll passed: [(name: String, descriptor: Int32)]) async throws {
    ProcessSlots.expectHeld("counterfactd")
    // Copies above the range they go to, so that no move overwrites one still to move.
    let high = passed.map { fcntl($0.descriptor, F_DUPFD_CLOEXEC, 64 + Int32(passed.count)) }
    defer { for descriptor in high where descriptor >= 0 { close(descriptor) } }
    guard !high.contains(where: { $0 < 0 }) else { throw HarnessError("cannot copy a descriptor to pass: errno \(errno)") }
    let names = passed.map(\.name).joined(separator: ":")
    let listening =
      passed.isEmpty ? [] : ["/bin/sh", "-c", #"export LISTEN_PID=$$ LISTEN_FDS="$1" LISTEN_FDNAMES="$0"; shift; exec "$@""#, names, String(passed.count)]
    let arguments = launcher + listening + [
      binary, "--socket", socket, "--state-dir", directory + "/state", "--fsync", "always",
    ] + (store.map { ["--store", $0] } ?? []) + options
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, directory + "/daemon.log", O_WRONLY | O_CREAT | O_APPEND, 0o644)
    // Nothing else of the test process goes with it: a pipe another test made in the
    // meantime (without close-on-exec) would otherwise stay open for as long as this daemon
    // lives, and the process reading its other end would never see the end of it.
    for (index, descriptor) in high.enumerated() { posix_spawn_file_actions_adddup2(&actions, descriptor, 3 + Int32(index)) }
    do { try ChildDescriptors.closeAllFrom(3 + Int32(passed.count), in: &actions) } catch { throw HarnessError(error.description) }
    var child: pid_t = 0
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    let variables = environment.map { "\($0.key)=\($0.value)" }
    var envp = variables.map { strdup($0) }
    var index = 0
    while let entry = environ[index] {
      let text = String(cString: entry)
      if !environment.keys.contains(where: { text.hasPrefix($0 + "=") }) { envp.append(strdup(entry)) }
      index += 1
    }
    envp.append(nil)
    defer { for pointer in envp { free(pointer) } }
    let status = posix_spawn(&child, arguments[0], &actions, nil, argv, envp)
    guard status == 0 else { throw HarnessError("posix_spawn of counterfactd failed: \(status)") }
    pid.withLock { $0 = child }
    // Reaped by a thread of its own, so that no zombie is left.
    let spawned = child
    Thread.detachNewThread {
      var status: Int32 = 0
      waitpid(spawned, &status, 0)
    }
    try await DaemonHarness.waitUntilListening(socket)
  }

  /// What the daemon logged (all its starts), for a failure's message.
  var log: String {
    (try? String(contentsOfFile: directory + "/daemon.log", encoding: .utf8)) ?? "(no log)"
  }

  /// The daemon's process id (0 before the first start).
  var processID: pid_t { pid.withLock { $0 } }

  /// Stops the daemon with SIGTERM and waits until it has exited.
  func terminate() async throws {
    let child = pid.withLock { $0 }
    guard child > 0 else { return }
    Glibc.kill(child, SIGTERM)
    try await eventually("counterfactd (pid \(child)) to exit after SIGTERM", seconds: 30) { Glibc.kill(child, 0) != 0 }
  }

  func kill() {
    let child = pid.withLock { $0 }
    if child > 0 { Glibc.kill(child, SIGKILL) }
  }

  func connect() async throws -> ArborConnection {
    let socket = self.socket
    return try await withDeadline("a connection to \(socket)") { try await ArborConnection.connect(to: socket) }
  }

  /// The daemon's revision now.
  func revision() async throws -> UInt64 {
    let client = try await connect()
    defer { client.close() }
    return UInt64(try await client.call("state.get")["revision"]?.intValue ?? -1)
  }

  /// Waits until the daemon is a standby at `revision` or later.
  func waitUntilFollowing(revision: UInt64) async throws {
    try await eventually("the standby at \(socket) to follow revision \(revision)", seconds: 30) {
      guard let client = try? await ArborConnection.connect(to: self.socket) else { return false }
      defer { client.close() }
      guard let status = try? await client.call("daemon.status") else { return false }
      return status["journal"]?["lead"]?["standby"] == true && UInt64(status["revision"]?.intValue ?? -1) >= revision
    }
  }

  /// Waits until the daemon accepts an intent (it leads).
  func waitUntilLeading() async throws {
    try await eventually("the standby at \(socket) to take the lead", seconds: 30) {
      guard let client = try? await ArborConnection.connect(to: self.socket) else { return false }
      defer { client.close() }
      guard let status = try? await client.call("daemon.status") else { return false }
      return status["journal"]?["lead"]?["standby"] == false
    }
  }
}
