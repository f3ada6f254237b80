import ArborStorage
import Logging
import ServiceLifecycle

/// A leader's watch for having lost the lead of its shared store (``StoreLeadership``, a
/// PostgreSQL store): another daemon took it while this one could not reach the server (a
/// cut network, a restart of the server that ended its session). Every `interval` it asks
/// the store to confirm the lead (the store makes the leader's session again, with the
/// lock and the term checked, when the server ended it) and tells ``Leadership`` what it
/// learnt: confirmed, unconfirmed (no answer in time), or lost (another daemon leads, or
/// the journal's writer was refused for that reason). At a loss it stops checking;
/// ``Leadership`` ends the leader's services (this one in its turn), and the daemon follows
/// the store as a standby.
struct LeadershipLoss: Service {
  let store: any StoreLeadership
  /// The leader's journal writer: a write refused as ``StoreError/Kind/superseded`` is a loss.
  let writer: JournalWriter
  let leadership: Leadership
  let interval: Duration
  let logger: Logger

  init(store: any StoreLeadership, writer: JournalWriter, leadership: Leadership, interval: Duration = .seconds(1), logger: Logger) {
    self.store = store
    self.writer = writer
    self.leadership = leadership
    self.interval = interval
    self.logger = logger
  }

  func run() async throws {
    while !Task.isCancelledOrShuttingDown {
      var reason = writer.failure.flatMap { $0.kind == .superseded ? $0.message : nil }
      if reason == nil {
        do {
          try await store.confirmLead(within: .seconds(3))
          await leadership.leadConfirmed()
        } catch where error.kind == .superseded {
          reason = error.message
        } catch {
          // The server cannot be reached now: the lead is neither confirmed nor lost yet.
          await leadership.leadUnconfirmed(reason: error.message)
        }
      }
      if let reason {
        logger.warning("this daemon no longer leads \(store.location): \(reason)")
        await leadership.leadLost(reason: reason)
        // Ends when the group stops it, in its turn: a service that ends on its own while
        // the group shuts down is an error to the group.
        try? await gracefulShutdown()
        return
      }
      try? await Task.sleep(for: interval)
    }
  }
}
