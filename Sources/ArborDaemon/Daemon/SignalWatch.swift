import ArborLocking
import Dispatch

#if canImport(Glibc)
  import Glibc
#endif

/// Calls `handler` each time the process receives `signal` (instead of its default action,
/// which for SIGHUP is to end the process), on a dispatch queue of its own.
final class SignalWatch: Sendable {
  /// The dispatch source, behind a lock: dispatch sources are not marked `Sendable`.
  private let source: LockedState<(any DispatchSourceSignal)?>

  init(_ signal: Int32, handler: @escaping @Sendable () -> Void) {
    Glibc.signal(signal, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signal, queue: DispatchQueue(label: "arbor.signal.\(signal)"))
    source.setEventHandler(handler: handler)
    source.resume()
    self.source = LockedState(source)
  }

  func cancel() {
    source.withLock { source in
      source?.cancel()
      source = nil
    }
  }
}
