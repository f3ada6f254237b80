#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a (non-recursive) pthread mutex.
///
/// Used instead of `Synchronization.Mutex` for small internal states: the same cost, and
/// ThreadSanitizer intercepts pthread locks, so `make test-tsan` sees the synchronization
/// (it cannot see inside the uninstrumented standard library's contended path).
final class LockedState<Value: Sendable>: @unchecked Sendable {  // Sendable: `value` is only touched under `mutex`
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>
  private var value: Value

  init(_ value: Value) {
    self.value = value
    mutex = .allocate(capacity: 1)
    pthread_mutex_init(mutex, nil)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body(&value)
  }
}
