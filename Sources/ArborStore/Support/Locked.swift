import Foundation

/// A value guarded by a pthread mutex (`NSLock`), which ThreadSanitizer understands (it
/// does not see inside `Synchronization.Mutex`, and reports races through it that are not).
///
/// ```swift
/// let count = Locked(0)
/// count.withLock { $0 += 1 }
/// ```
final class Locked<Value>: @unchecked Sendable {
  // Unchecked: every access to `value` holds `lock`.
  private let lock = NSLock()
  private var value: Value

  init(_ value: Value) { self.value = value }

  func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&value)
  }
}
