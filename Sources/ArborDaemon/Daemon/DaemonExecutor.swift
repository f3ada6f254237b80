import Foundation
import NIOCore
import NIOPosix

/// Runs Swift concurrency's tasks on swift-nio's event loops instead of the default pool,
/// so that a request goes from the socket to the tree and back without hopping between
/// the two sets of threads.
///
/// Call it first thing in a synchronous `main`, before any task exists:
///
/// ```swift
/// @main enum Main {
///   static func main() {
///     DaemonExecutor.run { await Counterfactd.main() }
///   }
/// }
/// ```
public enum DaemonExecutor {
  /// Installs the event loops as the global executor (once, from the main thread), runs
  /// `body` in a task, and exits when it returns. Never returns.
  public static func run(_ body: @escaping @Sendable () async -> Void) -> Never {
    _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
    Task {
      await body()
      exit(0)
    }
    dispatchMain()
  }
}
