import ArborSystemd
import ServiceLifecycle

/// Refreshes the line `systemctl status` shows (`STATUS=`) every `--status-interval`
/// seconds, while systemd listens.
struct StatusTicker: Service, CustomStringConvertible {
  var description: String { "StatusTicker" }
  let notifier: SystemdNotifier
  let interval: Duration
  let status: @Sendable () -> String

  func run() async {
    await cancelWhenGracefulShutdown { [notifier, interval, status] in
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        notifier.status(status())
      }
    }
  }
}
