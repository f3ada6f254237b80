import ArborSystemd
import Foundation
import Logging
import Synchronization

/// Pings systemd's watchdog (`WATCHDOG=1`) at half the interval it asks for, from a thread
/// of its own. Each ping first takes the tree's lock (it reads the revision): a tree
/// wedged by a model that never lets go of it stops the pings, and systemd restarts the
/// service.
final class Watchdog: Sendable {
  private let stopped = Atomic<Bool>(false)

  init(interval: Duration, host: any TreeHost, notifier: SystemdNotifier, logger: Logger) {
    let half = interval / 2
    let microseconds = UInt32(clamping: half.components.seconds * 1_000_000 + half.components.attoseconds / 1_000_000_000_000)
    logger.info("systemd's watchdog is on: pinging every \(half)")
    let thread = Thread { [self] in
      while !stopped.load(ordering: .relaxed) {
        _ = host.revision
        notifier.watchdog()
        usleep(max(1_000, microseconds))
      }
    }
    thread.name = "arbor-watchdog"
    thread.start()
  }

  func stop() { stopped.store(true, ordering: .relaxed) }
}
