import ArborClient
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Waiting for a daemon that is starting: a command typed right after a restart is
/// answered once the new process listens, rather than failing while it starts.
///
/// What is waited for, within `--timeout`: a socket file that is missing from a folder
/// that exists (the daemon has not bound it yet), and a socket nothing listens on (left
/// by the process that stopped). What is not: a folder that does not exist, a path that
/// is a directory or another kind of file, a socket the user may not open. Those fail at
/// once (exit 3 or 5), as does a wait that reaches its deadline (exit 3, with why).
///
/// On a terminal, a wait longer than ``noticeAfter`` says so on standard error once.
enum SocketWait {
  /// How long a wait goes on before it is said on a terminal.
  static let noticeAfter = Duration.milliseconds(700)
  /// The pause between two tries: short at first, then at most ``longestPause``.
  static let firstPause = Duration.milliseconds(25)
  static let longestPause = Duration.milliseconds(250)

  /// Whether nothing at `path` yet may still become the daemon's socket.
  static func mayAppear(_ path: String) -> Bool {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      // Missing: worth waiting for only in a folder that exists.
      let folder = (path as NSString).deletingLastPathComponent
      var folderInfo = stat()
      return errno == ENOENT && stat(folder.isEmpty ? "." : folder, &folderInfo) == 0 && (folderInfo.st_mode & S_IFMT) == S_IFDIR
    }
    return (info.st_mode & S_IFMT) == S_IFSOCK
  }

  /// Connects to the first of `paths` that answers, trying again until `deadline` while
  /// a socket may still appear or start listening.
  static func connect(to paths: [String], until deadline: ContinuousClock.Instant) async throws -> ArborConnection {
    try await connect(to: paths, until: deadline) { paths throws(ArborClientError) in try await ArborClient(socketPaths: paths).connect() }
  }

  /// Opens a connection of any kind with `open` (given `paths`, it throws
  /// ``ArborClientError/cannotConnect(path:reason:)`` when none answers), trying again as
  /// ``connect(to:until:)`` does: `arborctl bridge` opens a plain byte channel this way.
  static func connect<Connection: Sendable>(
    to paths: [String], until deadline: ContinuousClock.Instant, _ open: ([String]) async throws(ArborClientError) -> Connection
  ) async throws -> Connection {
    var pause = firstPause
    let notice = Notice(paths.joined(separator: ", "))
    while true {
      let failure: ArborClientError
      do {
        return try await open(paths)
      } catch {
        failure = error
      }
      guard case .cannotConnect(_, let reason) = failure, !reason.localizedCaseInsensitiveContains("permission denied"),
        paths.contains(where: mayAppear), ContinuousClock.now + pause < deadline
      else { throw failure }
      notice.sayIfLong()
      try await Task.sleep(for: pause)
      pause = min(pause * 2, longestPause)
    }
  }

  /// The default socket (`ConnectionOptions.socketPath(given: nil)`), waited for while
  /// none is in a default folder that exists; a second socket there is a usage error at
  /// once.
  static func discovered(until deadline: ContinuousClock.Instant) async throws(CommandFailure) -> [String] {
    var pause = firstPause
    let notice = Notice("a daemon's socket")
    while true {
      do {
        return [try ConnectionOptions.socketPath(given: nil)]
      } catch {
        guard error.code == .cannotConnect, ConnectionOptions.defaultFolders().contains(where: folderExists),
          ContinuousClock.now + pause < deadline
        else { throw error }
      }
      notice.sayIfLong()
      do { try await Task.sleep(for: pause) } catch { throw CommandFailure(.timeout, "stopped while waiting for a daemon's socket") }
      pause = min(pause * 2, longestPause)
    }
  }

  private static func folderExists(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
  }

  /// The one line a long wait prints on a terminal.
  private final class Notice {
    let what: String
    let start = ContinuousClock.now
    var said = false
    init(_ what: String) { self.what = what }

    func sayIfLong() {
      guard !said, ContinuousClock.now - start >= SocketWait.noticeAfter, isatty(STDERR_FILENO) == 1 else { return }
      said = true
      var standardError = StandardError()
      print("arborctl: waiting for \(what) (a daemon that is starting; --timeout to change how long)…", to: &standardError)
    }
  }
}
