import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A Unix socket connection as a bare file descriptor, for a load generator that costs as
/// little per request as redis-benchmark does: no tasks, no buffers but one. Blocking
/// unless ``setNonBlocking()`` is called.
///
/// ```swift
/// var socket = try RawSocket(connectingTo: "/tmp/d.sock")
/// try socket.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#.utf8) + [0x0A])
/// print(String(decoding: try socket.readLine(), as: UTF8.self))
/// socket.close()
/// ```
public struct RawSocket: Sendable {
  /// The connection's file descriptor.
  public let fd: Int32
  /// Bytes read and not yet taken as lines: those from `consumed` on.
  private var pending: [UInt8] = []
  /// How many bytes at the start of `pending` were taken as lines already (removed at
  /// once when no whole line is left, so that a pipeline's replies cost no shifting).
  private var consumed = 0
  /// Where `read` puts what it reads: allocated once per connection.
  private var chunk = [UInt8](repeating: 0, count: 4096)

  /// Connects to the Unix socket at `path`; throws ``LoadError`` (`.cannotConnect`) when nobody listens.
  public init(connectingTo path: String) throws {
    // Close-on-exec: a process the caller starts meanwhile gets no copy, which would keep
    // the connection open after it is closed here.
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw LoadError("socket(): \(String(cString: strerror(errno)))") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
      Glibc.close(fd)
      throw LoadError("the socket path is too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
      raw.copyBytes(from: bytes)
      raw[bytes.count] = 0
    }
    let status = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard status == 0 else {
      let reason = String(cString: strerror(errno))
      Glibc.close(fd)
      throw LoadError("cannot connect to \(path): \(reason)", kind: .cannotConnect)
    }
    self.fd = fd
  }

  /// Writes all of `bytes`, waiting for room when the socket is non-blocking and full.
  public func send(_ bytes: [UInt8]) throws {
    try send(bytes[...])
  }

  /// Writes all of `bytes` (several requests at once, for a pipeline), waiting for room
  /// when the socket is non-blocking and full.
  func send(_ bytes: ArraySlice<UInt8>) throws {
    var offset = bytes.startIndex
    while offset < bytes.endIndex {
      let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
      if written > 0 {
        offset += written
      } else if written < 0 && (errno == EAGAIN || errno == EINTR) {
        var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        _ = poll(&descriptor, 1, 1000)
      } else {
        throw LoadError("write(): \(String(cString: strerror(errno)))")
      }
    }
  }

  /// Reads what the socket has, without waiting when it is non-blocking; false at the end
  /// of the stream.
  public mutating func fill() throws -> Bool {
    while true {
      let fd = self.fd
      let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if count > 0 {
        pending.append(contentsOf: chunk[0..<count])
        if count < chunk.count { return true }
      } else if count == 0 {
        return false
      } else if errno == EAGAIN {
        return true
      } else if errno != EINTR {
        throw LoadError("read(): \(String(cString: strerror(errno)))")
      }
    }
  }

  /// The next complete line read so far, without its newline.
  mutating func nextLine() -> ArraySlice<UInt8>? {
    guard let newline = pending[consumed...].firstIndex(of: 0x0A) else {
      if consumed > 0 {
        pending.removeSubrange(..<consumed)
        consumed = 0
      }
      return nil
    }
    let line = pending[consumed..<newline]
    consumed = newline + 1
    return line
  }

  /// Waits for one line (the socket must be blocking).
  public mutating func readLine() throws -> ArraySlice<UInt8> {
    while true {
      if let line = nextLine() { return line }
      guard try fill() else { throw LoadError("the daemon closed the connection") }
    }
  }

  func setNonBlocking() {
    _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
  }

  /// Closes the connection.
  public func close() { _ = Glibc.close(fd) }
}
