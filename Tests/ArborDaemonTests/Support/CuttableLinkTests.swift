import ArborClient
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The link the network-cut tests reach PostgreSQL through: a connection made while the
/// link is cut, after the server noticed the old ones gone, carries its bytes once the link
/// is back. The link used to close a connection's descriptors under the threads that pumped
/// them; the next connection got the same numbers, and the old threads read its bytes and
/// lost them (a leader cut off and reconnected then waited out a 120 s read in silence).
@Suite struct CuttableLinkTests {
  @Test func aConnectionMadeDuringACutCarriesItsBytesOnceTheLinkIsBack() async throws {
    let server = try EchoServer()
    let link = try CuttableLink(to: server.path)
    let before = try LinkClient()
    try before.connect(port: link.port)
    #expect(try await before.echo("before the cut") == "before the cut")
    // This end is made first, so that the link's end of the next connection gets the
    // number the server's side of the first one leaves free.
    let during = try LinkClient()
    link.cut()
    link.serverNotices()
    // Connected at once, while the old connection's threads are still about.
    try during.connect(port: link.port)
    link.restore()
    // The connection cut off is reset; the new one carries every message.
    #expect(await before.isEnded(), "the connection whose server side went is reset")
    for round in 1...50 {
      #expect(try await during.echo("message \(round)") == "message \(round)", "round \(round)")
    }
    #expect(link.openConnections == 1)
  }
}

/// An echo server on a Unix socket of a temporary directory, a thread per connection.
private final class EchoServer: Sendable {
  let path: String

  init() throws {
    path = try DaemonHarness.temporaryDirectory() + "/echo.sock"
    let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard listener >= 0 else { throw HarnessError("socket() failed: \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (offset, byte) in path.utf8.enumerated() { buffer[offset] = byte }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard bound == 0, listen(listener, 16) == 0 else { throw HarnessError("the echo server could not listen: \(errno)") }
    Thread.detachNewThread {
      while true {
        let connection = (try? ChildDescriptors.accept(listener)) ?? -1
        guard connection >= 0 else { return }
        Thread.detachNewThread {
          var buffer = [UInt8](repeating: 0, count: 4_096)
          while true {
            let count = read(connection, &buffer, buffer.count)
            guard count > 0, buffer.withUnsafeBytes({ send(connection, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }) == count else { break }
          }
          close(connection)
        }
      }
    }
  }
}

/// A client of the link that never blocks a thread of the pool: it polls.
private final class LinkClient: Sendable {
  let fd: Int32

  init() throws {
    fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket() failed: \(errno)") }
  }

  /// Connects to 127.0.0.1:`port` (the link answers at once: it listens on loopback).
  func connect(port: Int) throws {
    guard HTTPFlood.connectToLoopback(fd, port: port) else { throw HarnessError("cannot connect to the link on port \(port): \(errno)") }
  }

  deinit { close(fd) }

  /// Sends `text` and reads as many bytes back (20 s at most).
  func echo(_ text: String) async throws -> String {
    let bytes = Array(text.utf8)
    guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
      throw HarnessError("the send of \(text) failed: \(errno)")
    }
    var received: [UInt8] = []
    let deadline = ContinuousClock.now + .seconds(20)
    var buffer = [UInt8](repeating: 0, count: 4_096)
    while received.count < bytes.count {
      guard ContinuousClock.now < deadline else {
        throw HarnessError("\(text): \(received.count) of \(bytes.count) bytes came back within 20 s")
      }
      let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
      if count > 0 {
        received += buffer[0..<count]
      } else if count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK) {
        throw HarnessError("\(text): the connection ended after \(received.count) bytes (errno \(errno))")
      } else {
        try await Task.sleep(for: .milliseconds(2))
      }
    }
    return String(decoding: received, as: UTF8.self)
  }

  /// Whether the connection ends (a reset or an end of input) within 5 s.
  func isEnded() async -> Bool {
    await ConnectionEnd.seen(on: fd, within: .seconds(5))
  }
}
