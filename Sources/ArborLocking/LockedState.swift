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
/// A copy shares the lock and the value. The value and the mutex live in one allocation
/// (``LockedStorage``): a lock made per request (an intent's commit trace, a revision's
/// patch cache) costs one `malloc`, not two.
///
/// ```swift
/// let count = LockedState(0)
/// count.withLock { $0 += 1 }
/// ```
package struct LockedState<Value>: @unchecked Sendable {  // Sendable: the value is only touched under the storage's mutex
  @usableFromInline let storage: LockedStorage<Value>

  @inlinable
  package init(_ value: Value) {
    storage = LockedStorage.holding(value)
  }

  /// Runs `body` with the lock held and returns its result. Inlinable, so that each caller
  /// gets it specialized for its value and result.
  @inlinable
  package func withLock<R>(_ body: (inout Value) throws -> R) rethrows -> R {
    try storage.withUnsafeMutablePointers { value, mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body(&value.pointee)
    }
  }
}

extension LockedState where Value == Void {
  /// A lock that guards no value of its own, only a section of code.
  ///
  /// Runs `body` with the lock held. The empty value is never reached: ThreadSanitizer
  /// reported the `inout` of it as a write at the buffer's own address, racing with the
  /// next caller's look at the buffer before it locks (`make test-tsan`, 2026-12-07).
  ///
  /// ```swift
  /// let pushing = LockedState(())
  /// pushing.withLock { backend.push(entry) }
  /// ```
  @inlinable
  package func withLock<R>(_ body: () throws -> R) rethrows -> R {
    try storage.withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_lock(mutex)
      defer { pthread_mutex_unlock(mutex) }
      return try body()
    }
  }
}

/// The allocation behind a ``LockedState``: the value as the buffer's header, the mutex as
/// its one element, whose address never changes.
@usableFromInline
package final class LockedStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
  @inlinable
  static func holding(_ value: Value) -> LockedStorage<Value> {
    let storage = unsafeDowncast(create(minimumCapacity: 1) { _ in value }, to: LockedStorage<Value>.self)
    storage.withUnsafeMutablePointerToElements { mutex in
      mutex.initialize(to: pthread_mutex_t())
      pthread_mutex_init(mutex, nil)
    }
    return storage
  }

  deinit {
    withUnsafeMutablePointerToElements { mutex in
      pthread_mutex_destroy(mutex)
      mutex.deinitialize(count: 1)
    }
  }
}
