import Foundation

/// Runs one blocking call of the store on a thread of its own, and waits for it without
/// holding any thread.
///
/// The store's synchronous calls wait for the disk or, with PostgreSQL, for the server:
/// up to a connection's deadline plus a statement's (10 s + 30 s) when the network is cut.
/// On a shared pool (NIO's has as many threads as the machine has cores, two here) two
/// such calls left nothing for a third, such as the recovery a cut-off leader makes to
/// follow the new one, and nothing for the large request lines that pool parses. These
/// calls are rare (a start, a recovery, a retry a second while writes are refused, a
/// look at the snapshots after each one is saved), so a thread each costs nothing that
/// matters, and no call ever waits for another's thread.
///
/// ```swift
/// let recovery = try await StoreCall.run { try store.recover() }
/// ```
package enum StoreCall {
  /// Runs `body` on a new thread; its result or its error.
  package static func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      onNewThread { continuation.resume(with: Result { try body() }) }
    }
  }

  /// Runs `body`, which cannot throw, on a new thread; its result.
  package static func run<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
      onNewThread { continuation.resume(returning: body()) }
    }
  }

  private static func onNewThread(_ work: @escaping @Sendable () -> Void) {
    let thread = Thread(block: work)
    thread.name = "arbor-store-call"
    thread.start()
  }
}
