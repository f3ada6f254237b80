#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

/// Which observer, if any, is recording the reads of the current thread.
///
/// An `Observed` closure is synchronous, so a thread-local is exact: reads made while it
/// runs are the reads it depends on. A process-wide count of active recordings lets every
/// other read skip the thread-local lookup.
enum AccessTracking {
  private static let key: pthread_key_t = {
    var key = pthread_key_t()
    pthread_key_create(&key, nil)
    return key
  }()

  private static let activeRecordings = Atomic<Int>(0)

  static var current: AccessObserver? {
    guard activeRecordings.load(ordering: .relaxed) > 0, let raw = pthread_getspecific(key) else { return nil }
    return Unmanaged<AccessObserver>.fromOpaque(raw).takeUnretainedValue()
  }

  /// Runs `body` with `observer` recording the reads it makes.
  static func recording<R>(_ observer: AccessObserver, _ body: () throws -> R) rethrows -> R {
    let previous = pthread_getspecific(key)
    activeRecordings.add(1, ordering: .relaxed)
    pthread_setspecific(key, Unmanaged.passUnretained(observer).toOpaque())
    defer {
      pthread_setspecific(key, previous)
      activeRecordings.subtract(1, ordering: .relaxed)
    }
    return try body()
  }
}

extension AnyModelContext {
  /// Registers the recording observer, if any, on `property`. Lock held.
  @usableFromInline
  final func _trackRead(_ property: Int) {
    guard let observer = AccessTracking.current else { return }
    register(observer, on: property)
  }

  /// Registers `observer` on `property` once. Lock held.
  private final func register(_ observer: AccessObserver, on property: Int) {
    for entry in observers where entry.property == property && entry.observer === observer { return }
    observers.append(ObserverEntry(property: property, observer: observer))
    observer.didRegister(on: self, property: property)
  }

  /// Registers the recording observer, if any, on `property`, as `_trackRead` does, and
  /// says whether recorded states answer this thread's reads (see ``HistoricalReads``,
  /// which is only in force while reads are recorded). Lock held. The generated getters
  /// call it, so that a read outside any recording pays for one relaxed atomic load.
  @usableFromInline
  final func _trackReadAnsweredFromHistory(_ property: Int) -> Bool {
    guard let observer = AccessTracking.current else { return false }
    register(observer, on: property)
    return HistoricalReads.current != nil
  }

  /// Removes `observer` from `property`. Takes the lock.
  final func unregister(_ observer: AccessObserver, property: Int) {
    withLock {
      observers.removeAll { $0.property == property && $0.observer === observer }
    }
  }
}
