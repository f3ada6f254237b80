import ArborStorage
import Logging
import ServiceLifecycle

/// A standby's watch for the leader's end: it tries to take the store's lead every
/// `interval`, and once it has it, tells ``Leadership``, which ends the standby's services
/// (this one last, in the group's order); the daemon starts again as the leader, from what
/// the old leader journalled.
struct LeadershipWatch: Service {
  let store: any StoreLeadership
  let leadership: Leadership
  let interval: Duration
  let logger: Logger

  init(store: any StoreLeadership, leadership: Leadership, interval: Duration = .milliseconds(200), logger: Logger) {
    self.store = store
    self.leadership = leadership
    self.interval = interval
    self.logger = logger
  }

  func run() async throws {
    while !Task.isCancelledOrShuttingDown {
      do {
        if try await store.tryToLead() {
          logger.notice("the leader of \(store.location) is gone: this daemon leads it now, in term \(store.term)")
          await leadership.leadTaken(term: store.term)
          // Ends when the group stops it, in its turn: a service that ends on its own while
          // the group shuts down is an error to the group.
          try? await gracefulShutdown()
          return
        }
      } catch {
        logger.warning("could not learn whether the lead of \(store.location) is free: \(error)")
      }
      try? await Task.sleep(for: interval)
    }
  }
}

extension Task where Success == Never, Failure == Never {
  /// Whether the task was cancelled or the service group is shutting down gracefully.
  static var isCancelledOrShuttingDown: Bool { Task.isCancelled || Task.isShuttingDownGracefully }
}
