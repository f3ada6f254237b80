import CEpoll
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// A load generator for a line protocol, built the way redis-benchmark is: one thread,
/// non-blocking sockets and epoll, one request in flight per client. It runs on a thread
/// of its own (``onThread(_:)``), never on the cooperative pool.
enum LineLoad {
  /// What one load run measured: requests per second and latencies in milliseconds.
  struct Result {
    var rps: Double
    var p50: Double
    var p99: Double
  }

  /// `clients` connections each send `request` (one line) and wait for its reply, until
  /// `requests` replies have come in all. A reply holding `"error"` stops the run with it.
  static func roundTrips(socket path: String, clients: Int, requests: Int, request: [UInt8]) throws -> Result {
    let perClient = max(1, requests / clients)
    var sockets = try (0..<clients).map { _ in try RawSocket(connectingTo: path) }
    defer { for socket in sockets { socket.close() } }
    let poller = try Poller()
    defer { poller.close() }
    for (index, socket) in sockets.enumerated() {
      socket.setNonBlocking()
      try poller.add(socket.fd, token: index)
    }
    var sentAt = [UInt64](repeating: 0, count: clients)
    var done = [Int](repeating: 0, count: clients)
    var latencies: [Double] = []
    latencies.reserveCapacity(perClient * clients)
    let errorMarker = Array(#""error""#.utf8)
    let started = monotonicNanoseconds()
    for (index, socket) in sockets.enumerated() {
      sentAt[index] = monotonicNanoseconds()
      try socket.send(request)
    }
    while latencies.count < perClient * clients {
      for index in try poller.wait(timeoutMilliseconds: 10_000) {
        guard try sockets[index].fill() else { throw LoadError("the daemon closed a connection") }
        while let line = sockets[index].nextLine() {
          let now = monotonicNanoseconds()
          if line.contains(bytes: errorMarker) { throw LoadError("the daemon answered with an error: \(String(decoding: line, as: UTF8.self))") }
          latencies.append(Double(now - sentAt[index]) / 1e6)
          done[index] += 1
          if done[index] < perClient {
            sentAt[index] = monotonicNanoseconds()
            try sockets[index].send(request)
          }
        }
      }
    }
    let seconds = Double(monotonicNanoseconds() - started) / 1e9
    latencies.sort()
    return Result(rps: Double(latencies.count) / seconds, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99))
  }

  /// What the fan-out run measured: for each change, milliseconds from sending the
  /// intent until the last watcher had read its notification.
  struct FanOut {
    var p50: Double
    var p99: Double
    var max: Double
  }

  /// Opens `watchers` connections that each send `watch` (one line) and read its reply;
  /// then `changes` times, sends `change` on one more connection and waits until every
  /// watcher has read one more notification.
  static func fanOut(socket path: String, watchers: Int, changes: Int, watch: [UInt8], change: [UInt8]) throws -> FanOut {
    var sockets: [RawSocket] = []
    defer { for socket in sockets { socket.close() } }
    let resultMarker = Array(#""result""#.utf8)
    for _ in 0..<watchers {
      var socket = try RawSocket(connectingTo: path)
      sockets.append(socket)
      try socket.send(watch)
      let reply = try socket.readLine()
      guard reply.contains(bytes: resultMarker) else { throw LoadError("the watch was refused: \(String(decoding: reply, as: UTF8.self))") }
      sockets[sockets.count - 1] = socket
    }
    var driver = try RawSocket(connectingTo: path)
    defer { driver.close() }
    let poller = try Poller()
    defer { poller.close() }
    for (index, socket) in sockets.enumerated() {
      socket.setNonBlocking()
      try poller.add(socket.fd, token: index)
    }
    var received = [Int](repeating: 0, count: watchers)
    var latencies: [Double] = []
    for round in 1...changes {
      let sent = monotonicNanoseconds()
      try driver.send(change)
      var reached = 0
      var last = sent
      while reached < watchers {
        for index in try poller.wait(timeoutMilliseconds: 10_000) {
          guard try sockets[index].fill() else { throw LoadError("the daemon closed a watcher's connection") }
          while sockets[index].nextLine() != nil {
            received[index] += 1
            if received[index] == round {
              reached += 1
              last = monotonicNanoseconds()
            }
          }
        }
      }
      latencies.append(Double(last - sent) / 1e6)
      let reply = try driver.readLine()
      guard reply.contains(bytes: resultMarker) else { throw LoadError("the change failed: \(String(decoding: reply, as: UTF8.self))") }
    }
    latencies.sort()
    return FanOut(p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.last ?? 0)
  }

  /// Runs `work` on a thread of its own and returns its result.
  static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(with: Swift.Result { try work() })
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
  }
}

/// epoll over the load generator's sockets: which are readable.
final class Poller {
  private let fd: Int32
  private var events = [epoll_event](repeating: epoll_event(), count: 256)

  init() throws {
    fd = epoll_create1(0)
    guard fd >= 0 else { throw LoadError("epoll_create1(): \(String(cString: strerror(errno)))") }
  }

  func add(_ socket: Int32, token: Int) throws {
    var event = epoll_event()
    event.events = EPOLLIN.rawValue
    event.data.u64 = UInt64(token)
    guard epoll_ctl(fd, EPOLL_CTL_ADD, socket, &event) == 0 else {
      throw LoadError("epoll_ctl(): \(String(cString: strerror(errno)))")
    }
  }

  /// The tokens of the readable sockets; an error when none is within the timeout.
  func wait(timeoutMilliseconds: Int32) throws -> [Int] {
    while true {
      let count = epoll_wait(fd, &events, Int32(events.count), timeoutMilliseconds)
      if count > 0 { return events[0..<Int(count)].map { Int($0.data.u64) } }
      if count == 0 { throw LoadError("no reply within \(timeoutMilliseconds) ms") }
      if errno != EINTR { throw LoadError("epoll_wait(): \(String(cString: strerror(errno)))") }
    }
  }

  func close() { _ = Glibc.close(fd) }
}
