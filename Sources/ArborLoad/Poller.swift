import CEpoll

#if canImport(Glibc)
  import Glibc
#endif

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
      if count == 0 { throw LoadError("no reply within \(timeoutMilliseconds) ms", kind: .noReply) }
      if errno != EINTR { throw LoadError("epoll_wait(): \(String(cString: strerror(errno)))") }
    }
  }

  func close() { _ = Glibc.close(fd) }
}
