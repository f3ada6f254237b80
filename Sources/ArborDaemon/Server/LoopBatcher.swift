import ArborLocking
import NIOCore

/// Runs work on event loops from another thread, one wake-up per loop for everything
/// queued meanwhile: the journal's writer thread releases the replies of a whole group
/// commit at once, and each loop is woken once for all of its connections' replies
/// instead of once per reply.
final class LoopBatcher: Sendable {
  private final class Queue: Sendable {
    let loop: any EventLoop
    let pending = LockedState<[@Sendable () -> Void]>([])
    init(loop: any EventLoop) { self.loop = loop }
  }

  private let queues = LockedState<[ObjectIdentifier: Queue]>([:])

  /// Runs `work` on `loop`, after whatever is queued for it already.
  func execute(on loop: any EventLoop, _ work: @escaping @Sendable () -> Void) {
    let queue = queues.withLock { queues in
      let key = ObjectIdentifier(loop)
      if let queue = queues[key] { return queue }
      let queue = Queue(loop: loop)
      queues[key] = queue
      return queue
    }
    let first = queue.pending.withLock { pending in
      pending.append(work)
      return pending.count == 1
    }
    guard first else { return }
    loop.execute {
      let works = queue.pending.withLock { pending in
        defer { pending = [] }
        return pending
      }
      for work in works { work() }
    }
  }
}
