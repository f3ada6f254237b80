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
  private let descriptors = NIOLockedValueBox<[(name: String, descriptor: Int32)]>([])
  private let closed = NIOLockedValueBox(false)
  /// Held while messages are taken off the socket and recorded.
  private let reading = NIOLock()

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
    let closed = self.closed
    Thread.detachNewThread { [self] in
      while !closed.withLockedValue({ $0 }) {
        var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        if poll(&poller, 1, 100) > 0 { drain() }
      }
      reading.withLock {
        Glibc.close(descriptor)
        for (_, passed) in descriptors.withLockedValue({ $0 }) { Glibc.close(passed) }
      }
    }
  }

  /// Takes every message waiting on the socket, in order. Called by the listening thread
  /// and before each look at what is kept: as systemd reads a service's notify messages
  /// before it handles the service's exit, so that a message sent just before the exit
  /// is not missed.
  private func drain() {
    reading.withLock {
      guard !closed.withLockedValue({ $0 }) else { return }
      while let (message, passed) = Self.receive(fd) { handle(message, passed: passed) }
    }
  }

  private func handle(_ message: String, passed: [Int32]) {
    received.withLockedValue { $0.append((message, .now)) }
    // `FDSTORE=1` with `FDNAME=`: kept as systemd keeps them, for the next start.
    let lines = message.split(separator: "\n")
    let name = lines.first { $0.hasPrefix("FDNAME=") }.map { String($0.dropFirst(7)) } ?? "stored"
    if lines.contains("FDSTORE=1") {
      descriptors.withLockedValue { $0.append(contentsOf: passed.map { (name, $0) }) }
    } else if lines.contains("FDSTOREREMOVE=1") {
      // Let go of, as systemd does: the next process has its own copies.
      let removed = descriptors.withLockedValue { stored in
        defer { stored.removeAll { $0.name == name } }
        return stored.filter { $0.name == name }
      }
      for entry in removed { Glibc.close(entry.descriptor) }
    } else {
      for passed in passed { Glibc.close(passed) }
    }
  }

  /// One datagram waiting with the descriptors it carried (`SCM_RIGHTS`, received
  /// close-on-exec); nil when none waits.
  private static func receive(_ socket: Int32) -> (String, [Int32])? {
    var buffer = [UInt8](repeating: 0, count: 4096)
    let space = 64 * MemoryLayout<Int32>.size
    var control = [UInt8](repeating: 0, count: space + 64)
    return buffer.withUnsafeMutableBytes { bytes -> (String, [Int32])? in
      control.withUnsafeMutableBytes { controlBytes -> (String, [Int32])? in
        var vector = iovec(iov_base: bytes.baseAddress, iov_len: bytes.count)
        return withUnsafeMutablePointer(to: &vector) { vectorPointer -> (String, [Int32])? in
          var header = msghdr()
          header.msg_iov = vectorPointer
          header.msg_iovlen = 1
          header.msg_control = controlBytes.baseAddress
          header.msg_controllen = controlBytes.count
          let count = recvmsg(socket, &header, Int32(MSG_CMSG_CLOEXEC) | Int32(MSG_DONTWAIT))
          guard count > 0 else { return nil }
          var passed: [Int32] = []
          var cursor = CMSG_FIRSTHDR_(&header)
          while let message = cursor {
            if message.pointee.cmsg_level == SOL_SOCKET && message.pointee.cmsg_type == Int32(SCM_RIGHTS) {
              let dataLength = Int(message.pointee.cmsg_len) - MemoryLayout<cmsghdr>.size
              let data = UnsafeRawPointer(message).advanced(by: MemoryLayout<cmsghdr>.size)
              for index in 0..<(dataLength / MemoryLayout<Int32>.size) {
                passed.append(data.loadUnaligned(fromByteOffset: index * MemoryLayout<Int32>.size, as: Int32.self))
              }
            }
            cursor = CMSG_NXTHDR_(&header, message)
          }
          return (String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<count]), as: UTF8.self), passed)
        }
      }
    }
  }

  /// The descriptors the daemon handed over with `FDSTORE=1`, with their `FDNAME=`.
  var storedDescriptors: [(name: String, descriptor: Int32)] {
    drain()
    return descriptors.withLockedValue { $0 }
  }

  /// Every message so far, oldest first.
  var messages: [String] {
    drain()
    return received.withLockedValue { $0.map(\.0) }
  }

  /// The messages with the time each came.
  var timedMessages: [(String, ContinuousClock.Instant)] {
    drain()
    return received.withLockedValue { $0 }
  }

  /// Whether a message holds the assignment `line` (`READY=1`).
  func has(_ line: String) -> Bool { messages.contains { $0.split(separator: "\n").contains(Substring(line)) } }

  func count(of line: String) -> Int { messages.filter { $0.split(separator: "\n").contains(Substring(line)) }.count }

  func close() {
    closed.withLockedValue { $0 = true }
    unlink(path)
  }
}

/// `CMSG_FIRSTHDR` and `CMSG_NXTHDR`, which are C macros.
private func CMSG_FIRSTHDR_(_ header: UnsafeMutablePointer<msghdr>) -> UnsafeMutablePointer<cmsghdr>? {
  guard header.pointee.msg_controllen >= MemoryLayout<cmsghdr>.size, let control = header.pointee.msg_control else { return nil }
  return control.assumingMemoryBound(to: cmsghdr.self)
}

private func CMSG_NXTHDR_(_ header: UnsafeMutablePointer<msghdr>, _ message: UnsafeMutablePointer<cmsghdr>) -> UnsafeMutablePointer<cmsghdr>? {
  let alignment = MemoryLayout<Int>.size
  let length = (Int(message.pointee.cmsg_len) + alignment - 1) & ~(alignment - 1)
  let next = UnsafeMutableRawPointer(message).advanced(by: length)
  guard let start = header.pointee.msg_control else { return nil }
  let end = start.advanced(by: Int(header.pointee.msg_controllen))
  guard next.advanced(by: MemoryLayout<cmsghdr>.size) <= end else { return nil }
  let candidate = next.assumingMemoryBound(to: cmsghdr.self)
  guard next.advanced(by: Int(candidate.pointee.cmsg_len)) <= end, candidate.pointee.cmsg_len >= MemoryLayout<cmsghdr>.size else { return nil }
  return candidate
}
