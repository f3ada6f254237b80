import ArborStorage
import Logging
import ServiceLifecycle

/// A standby's watch for the leader's end: it tries to take the store's lead every
/// `interval`, and once it has it, ends, which stops the standby's services; the daemon
/// then starts again as the leader, from what the old leader journalled.
struct LeadershipWatch: Service {
  let store: any StoreLeadership
  let interval: Duration
  let logger: Logger
  /// Called once this daemon leads.
  let tookLead: @Sendable () -> Void

  init(store: any StoreLeadership, interval: Duration = .milliseconds(200), logger: Logger, tookLead: @escaping @Sendable () -> Void) {
    self.store = store
    self.tookLead = tookLead
    self.interval = interval
    self.logger = logger
  }

  func run() async throws {
    while !Task.isCancelledOrShuttingDown {
      do {
        if try await store.tryToLead() {
          tookLead()
          logger.notice("the leader of \(store.location) is gone: this daemon leads it now, in term \(store.term)")
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
