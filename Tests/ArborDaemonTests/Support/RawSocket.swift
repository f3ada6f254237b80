import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A bare Unix socket for tests that must misbehave: send part of a line, or never read.
/// Reads never block (`MSG_DONTWAIT`), so a test can poll it without holding a thread.
final class RawSocket: @unchecked Sendable {
  // Unchecked: one test task uses a socket at a time; `fd` is never changed after init.
  let fd: Int32

  init(path: String, receiveBuffer: Int? = nil) throws {
    fd = try Self.connectedDescriptor(to: path, receiveBuffer: receiveBuffer)
  }

  /// A descriptor connected to the Unix socket at `path` (blocking). Closed on exec: a
  /// process the tests start meanwhile must not hold it open.
  static func connectedDescriptor(to path: String, receiveBuffer: Int? = nil) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket() failed: \(errno)") }
    if var size = receiveBuffer.map(Int32.init) {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (offset, byte) in path.utf8.enumerated() { buffer[offset] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else {
      close(fd)
      throw HarnessError("connect to \(path) failed: \(errno)")
    }
    return fd
  }

  func send(_ text: String) {
    var bytes = Array(text.utf8)
    _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  /// What can be read now without waiting.
  func readAvailable() -> [UInt8] {
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      guard count > 0 else { return result }
      result.append(contentsOf: buffer[0..<count])
    }
  }

  /// Waits, at most `timeout`, until something can be read (bytes, or the end), without
  /// holding a thread (``SocketReadiness``).
  func waitUntilReadable(timeout: Duration = .seconds(1)) async {
    _ = await SocketReadiness.shared.readable(fd, until: .now + timeout)
  }

  /// Ends its output and waits, at most `seconds`, for the peer to close: a daemon has
  /// then accepted the connection, seen its end and let it go.
  func finishAndAwaitClose(within seconds: Double) async {
    shutdown(fd, Int32(SHUT_WR))
    _ = await ConnectionEnd.seen(on: fd, within: .milliseconds(Int(seconds * 1000)))
  }

  deinit { close(fd) }
}
