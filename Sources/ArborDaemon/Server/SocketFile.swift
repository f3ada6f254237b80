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
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let result = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    return result == 0
  }
}
