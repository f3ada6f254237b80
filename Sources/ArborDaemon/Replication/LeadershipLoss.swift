import ArborStorage
import Logging
import ServiceLifecycle

/// A leader's watch for having lost the lead of its shared store (``StoreLeadership``, a
/// PostgreSQL store): another daemon took it while this one could not reach the server (a
/// cut network, a restart of the server that ended its session). Every `interval` it makes sure the leader's session is there
/// (made again, with the lock and the term checked, when it was lost); once the store says
/// another daemon leads, or the journal's writer was refused for that reason, it calls
/// `lost` and ends, which stops the leader's services. The daemon then follows the store
/// as a standby.
struct LeadershipLoss: Service {
  let store: any StoreLeadership
  let journal: DaemonJournal
  let interval: Duration
  let logger: Logger
  let lost: @Sendable () -> Void

  init(store: any StoreLeadership, journal: DaemonJournal, interval: Duration = .seconds(1), logger: Logger, lost: @escaping @Sendable () -> Void) {
    self.store = store
    self.journal = journal
    self.interval = interval
    self.logger = logger
    self.lost = lost
  }

  func run() async throws {
    // Whether the last check failed unanswered: said once until a check answers again.
    var unconfirmed = false
    while !Task.isCancelledOrShuttingDown {
      var reason = journal.writer.failure.flatMap { $0.kind == .superseded ? $0.message : nil }
      if reason == nil {
        do {
          try await store.confirmLead(within: .seconds(3))
          if unconfirmed { logger.notice("the lead of \(store.location) is confirmed again") }
          unconfirmed = false
        } catch where error.kind == .superseded {
          reason = error.message
        } catch {
          // The server cannot be reached: the lead is neither confirmed nor lost yet. Said,
          // because a session closed for not answering gives up the lock, which a standby
          // may then take.
          if !unconfirmed { logger.warning("the lead of \(store.location) could not be confirmed: \(error.message)") }
          unconfirmed = true
        }
      }
      if let reason {
        logger.warning("this daemon no longer leads \(store.location): \(reason)")
        lost()
        return
      }
      try? await Task.sleep(for: interval)
    }
  }
}
