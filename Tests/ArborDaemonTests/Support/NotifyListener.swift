import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#endif

/// A datagram socket standing in for systemd's `$NOTIFY_SOCKET`: it collects what a daemon
/// started with `NOTIFY_SOCKET=path` sends (`READY=1`, `STATUS=…`, `WATCHDOG=1`, …), each
/// message with the time it came.
final class NotifyListener: Sendable {
  let path: String
  private let fd: Int32
  private let received = NIOLockedValueBox<[(String, ContinuousClock.Instant)]>([])
  private let closed = NIOLockedValueBox(false)

  init(path: String) throws {
    self.path = path
    fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0 else { throw HarnessError("bind \(path): \(errno)") }
    let descriptor = self.fd
    let received = self.received
    let closed = self.closed
    Thread.detachNewThread {
      var buffer = [UInt8](repeating: 0, count: 4096)
      while !closed.withLockedValue({ $0 }) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { continue }
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { continue }
        let message = String(decoding: buffer[0..<count], as: UTF8.self)
        received.withLockedValue { $0.append((message, .now)) }
      }
      Glibc.close(descriptor)
    }
  }

  /// Every message so far, oldest first.
  var messages: [String] { received.withLockedValue { $0.map(\.0) } }

  /// The messages with the time each came.
  var timedMessages: [(String, ContinuousClock.Instant)] { received.withLockedValue { $0 } }

  /// Whether a message holds the assignment `line` (`READY=1`).
  func has(_ line: String) -> Bool { messages.contains { $0.split(separator: "\n").contains(Substring(line)) } }

  func count(of line: String) -> Int { messages.filter { $0.split(separator: "\n").contains(Substring(line)) }.count }

  func close() {
    closed.withLockedValue { $0 = true }
    unlink(path)
  }
}
