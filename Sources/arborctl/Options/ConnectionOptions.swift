import ArborLocking
import ArborClient
import ArborJSON
import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The options every command shares: where the daemon is, how long to wait, how to print.
struct ConnectionOptions: ParsableArguments {
  /// Seconds to wait when `--timeout` is not given.
  static let defaultTimeout = 10.0

  @Option(
    help: ArgumentHelp(
      "The daemon's socket (default: $ARBOR_SOCKET, else the only socket in the daemons' default directory).",
      discussion: "Repeat it for daemons that share one PostgreSQL store (a leader and its standbys): the one that answers serves, and a watch moves to the next when its daemon goes away. $ARBOR_SOCKET may list several, separated by colons."
    ))
  var socket: [String] = []

  @Option(
    help: ArgumentHelp(
      "A daemon on another machine, through ssh: ssh://[user@]host[:port][/path/to.sock] (default: $ARBOR_HOST).",
      discussion: "Runs `ssh -o BatchMode=yes [-p PORT] [user@]host -- arborctl bridge [--socket PATH]` and talks to the daemon over it, as the remote user (whose role the daemon decides). Without a path (or --socket), the remote arborctl finds the socket by its own rule. $ARBOR_SSH_COMMAND replaces `ssh -o BatchMode=yes`, $ARBOR_REMOTE_ARBORCTL the remote `arborctl`. Example: arborctl --host ssh://ops@build-1 get /counters",
      valueName: "ssh-address"))
  var host: String?

  @Option(help: "Seconds to wait for the daemon before giving up, exit 4 (default: 10); a daemon that is starting is waited for within it.")
  var timeout: Double?

  @Flag(help: "Print one compact JSON object per line (the default when standard output is not a terminal).")
  var json = false

  @OptionGroup var color: ColorOptions

  /// `--timeout`, or its default.
  var seconds: Double { timeout ?? Self.defaultTimeout }

  func validate() throws {
    if let timeout, !(timeout > 0 && timeout.isFinite) { throw ValidationError("--timeout must be a number of seconds above 0") }
  }

  /// The daemon on another machine, if that is where to connect: `--host`, else (unless
  /// `--socket` is given) `$ARBOR_HOST`. A `--socket` beside it is the remote socket.
  func sshAddress() throws(CommandFailure) -> SSHAddress? {
    let given: (text: String, source: String)
    if let host {
      given = (host, "--host")
    } else if socket.isEmpty, let variable = ProcessInfo.processInfo.environment["ARBOR_HOST"], !variable.isEmpty {
      given = (variable, "$ARBOR_HOST")
    } else {
      return nil
    }
    var address: SSHAddress
    do {
      address = try SSHAddress(parsing: given.text)
    } catch {
      throw CommandFailure(.usage, "\(given.source): \(error.description)")
    }
    if !socket.isEmpty {
      guard socket.count == 1 else { throw CommandFailure(.usage, "--host takes one remote socket (--socket), not \(socket.count)") }
      if let path = address.socketPath, path != socket[0] {
        throw CommandFailure(.usage, "\(given.source) names the socket \(path) and --socket \(socket[0]): give one of them")
      }
      address.socketPath = socket[0]
    }
    return address
  }

  /// A client of the daemon: through ssh (``sshAddress()``), else of the sockets
  /// (``socketPaths()``). The remote bridge is given this `--timeout`, when set.
  func client(reconnect policy: ReconnectPolicy) throws(CommandFailure) -> ArborClient {
    guard let address = try sshAddress() else { return ArborClient(socketPaths: try socketPaths(), reconnect: policy) }
    return ArborClient(ssh: address, command: .fromEnvironment(bridgeArguments: timeout.map { ["--timeout", "\($0)"] } ?? []), reconnect: policy)
  }

  /// Where to connect: `--socket`, `$ARBOR_SOCKET`, or the only `*.sock` in the directory
  /// a daemon puts its socket in by default.
  func socketPath() throws(CommandFailure) -> String {
    try Self.socketPath(given: socket.first)
  }

  /// Every socket to try, in order: each `--socket`, else those of `$ARBOR_SOCKET`
  /// (separated by colons), else the default one.
  func socketPaths() throws(CommandFailure) -> [String] {
    if !socket.isEmpty { return socket }
    if let sockets = ProcessInfo.processInfo.environment["ARBOR_SOCKET"], !sockets.isEmpty {
      return sockets.split(separator: ":").map(String.init)
    }
    return [try Self.socketPath(given: nil)]
  }

  /// The socket `given` (by `--socket`), else `$ARBOR_SOCKET` (its first), else the
  /// default one.
  static func socketPath(given socket: String?) throws(CommandFailure) -> String {
    if let socket { return socket }
    if let socket = ProcessInfo.processInfo.environment["ARBOR_SOCKET"]?.split(separator: ":").first, !socket.isEmpty {
      return String(socket)
    }
    let directories = defaultFolders()
    for directory in directories {
      let sockets = ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).filter { $0.hasSuffix(".sock") }.sorted()
      if sockets.count == 1 { return directory + "/" + sockets[0] }
      if sockets.count > 1 {
        throw CommandFailure(
          .usage, "several daemons listen in \(directory) (\(sockets.joined(separator: ", "))): choose one with --socket or $ARBOR_SOCKET")
      }
    }
    throw CommandFailure(
      .cannotConnect,
      "no daemon socket found in \(directories.joined(separator: " or ")): start one (for example `make run`) or pass its socket with --socket or $ARBOR_SOCKET")
  }

  /// The folders a daemon puts its socket in by default, searched in this order:
  /// `$XDG_RUNTIME_DIR/arbor` when set, then `/run/arbor` for root or `/tmp/arbor-UID`.
  static func defaultFolders() -> [String] {
    let uid = getuid()
    var directories: [String] = []
    if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { directories.append(runtime + "/arbor") }
    directories.append(uid == 0 ? "/run/arbor" : "/tmp/arbor-\(uid)")
    return directories
  }

  /// Whether to print JSON lines rather than text.
  var printsJSON: Bool { json || isatty(STDOUT_FILENO) == 0 }

  /// Connects, runs `body`, and turns every failure into the exit code it stands for.
  ///
  /// A daemon being started or restarted is waited for, within `--timeout`: its socket
  /// may be missing (from a folder that exists) or left by the process that stopped
  /// (nothing listens yet). See ``SocketWait``.
  /// Through ssh (`--host`), the remote bridge waits for the daemon as this side would.
  func withConnection<T: Sendable>(_ body: @escaping @Sendable (ArborConnection) async throws -> T) async throws -> T {
    if let address = try sshAddress() {
      let client = try client(reconnect: .never)
      return try await withTimeout(path: address.description) {
        let connection = try await client.connect()
        defer { connection.close() }
        return try await body(connection)
      }
    }
    let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
    let paths = try await localSocketPaths(until: deadline)
    let path = paths.joined(separator: ", ")
    // The wait for a socket ends at the deadline by itself, with why (exit 3): the timeout
    // only bounds a connect that would hang, a moment later, so that on a loaded machine it
    // does not win the race and say "no answer" for a socket that is not there.
    let connection = try await withTimeout(path: path, seconds: seconds + Self.connectGrace) {
      try await SocketWait.connect(to: paths, until: deadline)
    }
    defer { connection.close() }
    let left = Double((deadline - ContinuousClock.now) / .milliseconds(1)) / 1000
    return try await withTimeout(path: path, seconds: max(0.001, left)) { try await body(connection) }
  }

  /// How much longer than `--timeout` a connect may take before it is a timeout.
  static let connectGrace = 1.0

  /// The sockets on this machine to try: those given (`--socket`, `$ARBOR_SOCKET`), else the
  /// default one, waited for until `deadline` while its folder exists.
  func localSocketPaths(until deadline: ContinuousClock.Instant) async throws -> [String] {
    let explicit = !socket.isEmpty || !(ProcessInfo.processInfo.environment["ARBOR_SOCKET"] ?? "").isEmpty
    return explicit ? try socketPaths() : try await SocketWait.discovered(until: deadline)
  }

  /// Where the daemon is, as messages name it: the `ssh://` address, else the sockets.
  func address() throws(CommandFailure) -> String {
    if let address = try sshAddress() { return address.description }
    return try socketPaths().joined(separator: ", ")
  }

  /// Runs `body` within `--timeout` seconds: past it, the failure is a timeout (exit 4);
  /// the client's errors become the exit codes they stand for.
  /// `seconds` (the whole of `--timeout` unless given) is how long is waited; the message
  /// names `--timeout` as given.
  func withTimeout<T: Sendable>(path: String, seconds limit: Double? = nil, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let seconds = self.seconds
    let limit = limit ?? seconds
    do {
      return try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
          try await Task.sleep(for: .milliseconds(Int64(limit * 1000)))
          throw CommandFailure(.timeout, "no answer from \(path) within \(seconds) s (--timeout)")
        }
        defer { group.cancelAll() }
        return try await group.next()!
      }
    } catch let failure as CommandFailure {
      throw failure
    } catch let error as ArborClientError {
      throw CommandFailure(error)
    }
  }

  /// A client of the daemon (its socket, or through ssh), for watches.
  func client(reconnect: Bool) throws(CommandFailure) -> ArborClient {
    try client(reconnect: reconnect ? ReconnectPolicy(giveUpAfter: nil) : .never)
  }

  /// Runs a long `body` (a watch) whose first result must come within `--timeout`: `body`
  /// calls `arrived()` when it has it, and from then on runs for as long as it likes.
  func withFirstWithinTimeout(path: String, _ body: @escaping @Sendable (_ arrived: @escaping @Sendable () -> Void) async throws -> Void) async throws {
    let seconds = self.seconds
    let first = FirstArrival()
    enum Finished { case body, timer }
    do {
      try await withThrowingTaskGroup(of: Finished.self) { group in
        group.addTask {
          try await body { first.arrive() }
          return .body
        }
        group.addTask {
          try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
          if !first.hasArrived { throw CommandFailure(.timeout, "no answer from \(path) within \(seconds) s (--timeout)") }
          return .timer
        }
        while let finished = try await group.next() {
          if finished == .body {
            group.cancelAll()
            return
          }
        }
      }
    } catch let failure as CommandFailure {
      throw failure
    } catch let error as ArborClientError {
      throw CommandFailure(error)
    }
  }
}

/// Whether a watch's first result has come, told from its task to the timer's.
final class FirstArrival: Sendable {
  private let arrived = LockedState(false)
  func arrive() { arrived.withLock { $0 = true } }
  var hasArrived: Bool { arrived.withLock { $0 } }
}

/// A command with the shared options (every command that talks to the daemon): its
/// `--color` is followed before it runs.
protocol ConnectedCommand {
  /// The command's shared options.
  var connection: ConnectionOptions { get }
}

extension StatusCommand: ConnectedCommand {}
extension PingCommand: ConnectedCommand {}
extension GetCommand: ConnectedCommand {}
extension CallCommand: ConnectedCommand {}
extension WatchCommand: ConnectedCommand {}
extension EventsCommand: ConnectedCommand {}
extension HistoryCommand: ConnectedCommand {}
extension AtCommand: ConnectedCommand {}
extension SnapshotCommand.Save: ConnectedCommand {}
extension SnapshotCommand.Restore: ConnectedCommand {}
extension UndoCommand: ConnectedCommand {}
extension RedoCommand: ConnectedCommand {}
extension SchemaCommand: ConnectedCommand {}
extension RPCCommand: ConnectedCommand {}
extension BenchCommand: ConnectedCommand {}
