import ArborTesting
import Dispatch
import Foundation

/// Work on threads of their own, for tests about locks: a thread that blocks on a lock
/// blocks only itself, never the cooperative pool the other tests run on, and the test
/// waiting for it fails at its deadline instead of hanging the run.
enum OtherThread {
  /// Runs `body` on a new thread and returns its result, failing the test (with
  /// `DeadlineExceeded`) if it has not finished within `seconds`. A thread that never
  /// finishes (a deadlock) is left behind, blocked.
  ///
  /// ```swift
  /// let value = try await OtherThread.run("the reader") { leaf.value }
  /// ```
  static func run<T: Sendable>(
    _ what: String, seconds: Double = Deadline.defaultSeconds,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column,
    _ body: @escaping @Sendable () -> T
  ) async throws -> T {
    try await withDeadline(what, seconds: seconds, fileID: fileID, filePath: filePath, line: line, column: column) {
      await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
      }
    }
  }

  /// Keeps `object` alive for good. For a test whose threads timed out while they may still
  /// hold a tree's lock (a deadlock): releasing the tree's anchor or root would tear the
  /// tree down, which takes that lock and would wait forever, hanging the run.
  static func abandon(_ object: AnyObject) {
    _ = Unmanaged.passRetained(object)
  }

  /// Whether `body`, run on a new thread, finishes within `seconds`, waited for
  /// synchronously: called where a lock may be held (an issue reporter, a dependency
  /// override, `==`), it tells whether that lock is free for other threads. `body`
  /// touches what the lock guards.
  ///
  /// ```swift
  /// #expect(OtherThread.finishes { _ = leaf.value }, "the tree lock is held")
  /// ```
  static func finishes(within seconds: Double = Deadline.defaultSeconds, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
      body()
      done.signal()
    }.start()
    return done.wait(timeout: .now() + seconds) == .success
  }
}

/// A one-way signal between two threads, each wait bounded by a deadline.
///
/// Waits happen on threads of their own, where a test cannot record an issue: `wait`
/// returns whether the signal came, and the thread hands that back to the test.
///
/// ```swift
/// let inside = Signal()
/// // thread A: inside.send()
/// // thread B: let came = inside.wait()   // false after 20 s
/// ```
final class Signal: Sendable {
  private let semaphore = DispatchSemaphore(value: 0)

  func send() { semaphore.signal() }

  /// Waits for `send()`; false if it did not come within `seconds`.
  func wait(seconds: Double = Deadline.defaultSeconds) -> Bool {
    semaphore.wait(timeout: .now() + seconds) == .success
  }
}
