import ArborLocking
import Logging

/// A log level that every copy of the daemon's logger follows, so that a reload
/// (SIGHUP with `log-level` in the settings file) changes it everywhere at once.
final class SharedLogLevel: Sendable {
  private let level: LockedState<Logger.Level>

  init(_ level: Logger.Level) { self.level = LockedState(level) }

  var value: Logger.Level {
    get { level.withLock { $0 } }
    set { level.withLock { $0 = newValue } }
  }
}

/// Wraps a handler so that its level is the shared one.
struct SharedLevelLogHandler: LogHandler {
  var inner: any LogHandler
  let shared: SharedLogLevel

  var logLevel: Logger.Level {
    get { shared.value }
    set { shared.value = newValue }
  }

  var metadata: Logger.Metadata {
    get { inner.metadata }
    set { inner.metadata = newValue }
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { inner[metadataKey: key] }
    set { inner[metadataKey: key] = newValue }
  }

  func log(event: LogEvent) { inner.log(event: event) }
}

