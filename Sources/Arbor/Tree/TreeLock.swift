#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The recursive mutex that guards every model context of one tree.
///
/// Recursive because a transaction holds it while user code reads and writes other
/// properties of the same tree. Observers, activation hooks, cancellation, issue reports
/// and dependency overrides never run while it is held (see `ModelTree.commit`); what user
/// code does run under it is listed in Docs/Architecture.md ("One lock per tree").
@usableFromInline
final class TreeLock: @unchecked Sendable {  // Sendable: the pthread mutex is the synchronization
  private let mutex: UnsafeMutablePointer<pthread_mutex_t>

  init() {
    mutex = .allocate(capacity: 1)
    var attributes = pthread_mutexattr_t()
    pthread_mutexattr_init(&attributes)
    pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_RECURSIVE))
    pthread_mutex_init(mutex, &attributes)
    pthread_mutexattr_destroy(&attributes)
  }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  /// Takes the lock, trying a few times before sleeping in the kernel: a tree's critical
  /// sections last microseconds, and two threads writing one tree (a daemon's event loops)
  /// would otherwise pay a futex sleep and wake-up for nearly every write.
  @usableFromInline
  func lock() {
    for _ in 0..<Self.spins where pthread_mutex_trylock(mutex) == 0 { return }
    pthread_mutex_lock(mutex)
  }

  /// How many times `lock()` tries before it waits.
  @usableFromInline static let spins = 100

  @usableFromInline
  func unlock() { pthread_mutex_unlock(mutex) }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    lock()
    defer { unlock() }
    return try body()
  }
}

extension Unmanaged where Instance == TreeLock {
  /// Takes the lock and returns it.
  @inline(__always)
  func locked() -> Unmanaged<TreeLock> {
    _withUnsafeGuaranteedRef { $0.lock() }
    return self
  }

  /// Releases the lock.
  @usableFromInline @inline(__always)
  func unlock() {
    _withUnsafeGuaranteedRef { $0.unlock() }
  }
}

/// Locks for models that are not anchored yet: a small fixed table, chosen by address.
///
/// A model in its initial stage is nearly always used by one thread; striping keeps the
/// per-model memory at zero for a lock it rarely needs. Order: a tree lock may be held
/// while a stripe lock is taken (to anchor), never the other way round: a stripe lock is
/// held only to read or write a field, never while user code runs (`DetachedWrites.swift`).
enum StripedLocks {
  static let locks: [TreeLock] = (0..<64).map { _ in TreeLock() }

  static func lock(for object: AnyObject) -> TreeLock {
    let address = UInt(bitPattern: ObjectIdentifier(object))
    return locks[Int((address >> 5) & 63)]
  }
}
