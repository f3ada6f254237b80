import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Prepares the path of the listening socket: its directory exists, a socket file left by
/// a daemon that died is removed, and a live daemon on the same path is refused.
enum SocketFile {
  enum Problem: Error, CustomStringConvertible {
    case live(path: String)
    case notASocket(path: String)
    case tooLong(path: String, limit: Int)
    case directory(path: String, reason: String)

    var description: String {
      switch self {
      case .live(let path):
        return "another daemon is serving on \(path); stop it first, or choose another socket with --socket"
      case .notASocket(let path):
        return "\(path) exists and is not a socket; remove it or choose another path with --socket"
      case .tooLong(let path, let limit):
        return "the socket path \(path) is longer than the \(limit) bytes a Unix socket address holds; choose a shorter one"
      case .directory(let path, let reason):
        return "cannot create the socket's directory \(path): \(reason)"
      }
    }
  }

  static func prepare(_ path: String) throws(Problem) {
    let limit = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1
    guard path.utf8.count <= limit else { throw .tooLong(path: path, limit: limit) }
    let directory = (path as NSString).deletingLastPathComponent
    if !directory.isEmpty {
      do {
        try FileManager.default.createDirectory(
          atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
      } catch {
        throw .directory(path: directory, reason: "\(error.localizedDescription)")
      }
    }
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw .notASocket(path: path) }
    if isLive(path) { throw .live(path: path) }
    unlink(path)
  }

  /// Whether something accepts connections on the socket at `path`.
  static func isLive(_ path: String) -> Bool {
    // Close-on-exec: a process started meanwhile (the next binary of an upgrade) gets no copy.
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    return UnixSocketAddress.with(path) { connect(fd, $0, $1) } == 0
  }
}
