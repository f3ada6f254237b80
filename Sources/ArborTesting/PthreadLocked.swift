#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`, for the helpers' own bookkeeping.
///
/// A plain pthread mutex rather than `Synchronization.Mutex`: ThreadSanitizer intercepts
/// pthread calls, so it sees the ordering this lock gives, while it cannot see inside
/// `Mutex`'s contended path (see Docs/Testing.md).
///
/// ```swift
/// let count = PthreadLocked(0)
/// count.withLock { $0 += 1 }
/// ```
package final class PthreadLocked<State>: @unchecked Sendable {  // `state` is only touched with `mutex` held
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var state: State

  package init(_ state: State) {
    self.state = state
    mutex = .allocate(capacity: 1)
    mutex.initialize(to: pthread_mutex_t())
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deinitialize(count: 1)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held. `body` must not wait for anything.
  package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&state)
  }
}
