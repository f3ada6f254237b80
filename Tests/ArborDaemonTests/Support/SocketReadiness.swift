import CEpoll
import Foundation
import NIOConcurrencyHelpers

#if canImport(Glibc)
  import Glibc
#endif

/// Waits until a socket has something to read, for every test task at once, with one
/// thread and `epoll`: a task that waits for a reply holds no thread and wakes only when
/// the reply (or the end of the connection, or its deadline) comes.
///
/// A test that sleeps a few milliseconds between tries instead costs its machine a wake-up
/// per try: 1,050 connections of the hand-over load test did 200,000 a second and took
/// both cores of this machine from the daemons they measured.
///
/// ```swift
/// if await SocketReadiness.shared.readable(socket.fd, until: .now + .seconds(1)) { … }
/// ```
final class SocketReadiness: @unchecked Sendable {
  // Unchecked: `waiting` is guarded by `lock`; `epoll` never changes after init.
  static let shared = SocketReadiness()

  private struct Waiter {
    let continuation: CheckedContinuation<Bool, Never>
    let deadline: ContinuousClock.Instant
  }

  private let epoll: Int32
  private let lock = NIOLock()
  private var waiting: [Int32: Waiter] = [:]

  private init() {
    epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
    precondition(epoll >= 0, "epoll_create1 failed: errno \(errno)")
    Thread.detachNewThread { [self] in run() }
  }

  /// Whether `descriptor` has something to read (bytes, or its end) before `deadline`.
  /// One task waits for a descriptor at a time.
  func readable(_ descriptor: Int32, until deadline: ContinuousClock.Instant) async -> Bool {
    await withCheckedContinuation { continuation in
      lock.withLock { waiting[descriptor] = Waiter(continuation: continuation, deadline: deadline) }
      // One shot: the descriptor reports once, then rests until the next wait arms it.
      var event = epoll_event()
      event.events = EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLONESHOT.rawValue
      event.data.fd = descriptor
      if epoll_ctl(epoll, EPOLL_CTL_MOD, descriptor, &event) != 0 && epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) != 0 {
        // Not a descriptor epoll can watch: say it is readable, and let the read tell.
        resume(descriptor, readable: true)
      }
    }
  }

  private func resume(_ descriptor: Int32, readable: Bool) {
    lock.withLock { waiting.removeValue(forKey: descriptor) }?.continuation.resume(returning: readable)
  }

  /// The thread: resumes the waiters whose descriptors are readable, and every 10 ms
  /// those whose deadlines passed.
  private func run() {
    var events = [epoll_event](repeating: epoll_event(), count: 256)
    var lastSweep = ContinuousClock.now
    while true {
      let count = epoll_wait(epoll, &events, Int32(events.count), 10)
      for event in events.prefix(max(0, Int(count))) { resume(event.data.fd, readable: true) }
      let now = ContinuousClock.now
      guard now - lastSweep >= .milliseconds(10) else { continue }
      lastSweep = now
      let expired = lock.withLock { waiting.filter { $0.value.deadline <= now }.map(\.key) }
      for descriptor in expired { resume(descriptor, readable: false) }
    }
  }
}
