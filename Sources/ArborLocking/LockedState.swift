#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a (non-recursive) pthread mutex: the one lock of every Arbor module.
///
/// Used instead of `Synchronization.Mutex` and NIO's `NIOLockedValueBox`: the same cost,
/// and ThreadSanitizer intercepts pthread locks, so `make test-tsan` sees the
/// synchronization (it cannot see inside the uninstrumented standard library's contended
/// path). The body runs with the lock held: it must not wait for anything, and a lock taken
/// inside another follows the orders written in Docs/Architecture.md ("Locks").
///
/// ```swift
/// let count = LockedState(0)
/// count.withLock { $0 += 1 }
/// ```
package final class LockedState<Value>: @unchecked Sendable {  // Sendable: `value` is only touched under `mutex`
  @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
  // Only touched under `mutex`: Swift's dynamic exclusivity check (a call into the runtime
  // on each access) would be redundant.
  @usableFromInline @exclusivity(unchecked) var value: Value

  package init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Runs `body` with the lock held and returns its result. Inlinable, so that each caller
  /// gets it specialized for its value and result.
  @inlinable
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
