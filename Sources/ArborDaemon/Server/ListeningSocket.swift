import ArborLocking

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon's own listening Unix socket, made here rather than by NIO so that its
/// descriptor can go to the service manager's descriptor store (``SocketServer``) before
/// NIO serves it: across a restart the socket stays open, and a client that connects while
/// no process runs waits in its backlog for the next one instead of being refused.
enum ListeningSocket {
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// A socket bound to `path` and listening, close-on-exec. The path is prepared
  /// (``SocketFile/prepare(_:)``) before.
  static func bound(to path: String, backlog: Int32) throws(Failure) -> Int32 {
    let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw Failure(description: "cannot make a socket for \(path): \(String(cString: strerror(errno)))") }
    let bound = UnixSocketAddress.with(path) { bind(descriptor, $0, $1) }
    guard bound == 0, listen(descriptor, backlog) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw Failure(description: "cannot listen on \(path): \(reason)")
    }
    return descriptor
  }

  /// The sockets this process handed to the service manager, by path: a duplicate of each
  /// is kept, so that serving again after a change of role (a standby that takes the lead)
  /// serves the same socket rather than binding a path that is still live.
  private static let kept = LockedState<[String: Int32]>([:])

  /// Keeps a duplicate of `descriptor`, the socket at `path` the service manager keeps.
  static func keep(_ descriptor: Int32, for path: String) {
    let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
    guard duplicate >= 0 else { return }
    kept.withLock { kept in
      if let earlier = kept.updateValue(duplicate, forKey: path) { close(earlier) }
    }
  }

  /// A new duplicate of the kept socket at `path`, for NIO to serve and close; nil when
  /// this process keeps none.
  static func duplicateOfKept(_ path: String) -> Int32? {
    kept.withLock { kept in
      guard let descriptor = kept[path] else { return nil }
      let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
      return duplicate >= 0 ? duplicate : nil
    }
  }

  /// Whether this process keeps the socket at `path`.
  static func isKept(_ path: String) -> Bool {
    kept.withLock { $0[path] != nil }
  }
}
