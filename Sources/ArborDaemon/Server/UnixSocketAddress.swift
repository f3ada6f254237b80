#if canImport(Glibc)
  import Glibc
#endif

/// The address of a Unix socket at a path, as `bind` and `connect` take it.
///
/// ```swift
/// let connected = UnixSocketAddress.with(path) { connect(descriptor, $0, $1) } == 0
/// ```
enum UnixSocketAddress {
  /// Calls `body` with the address of `path` (cut to what `sun_path` holds: the path is
  /// checked for length before) and its size.
  static func with<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    return withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
  }
}
