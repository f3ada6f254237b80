import ArborLocking
import Logging
import ServiceLifecycle

/// The daemon's ``LeadershipStateMachine`` for the whole of its run, behind a lock, with
/// the role's service group it ends when an event says so. The services that learn of a
/// change of lead (``LeadershipLoss``, ``LeadershipWatch``) and the stop (``DaemonStop``,
/// SIGTERM, SIGINT) tell it; ``ArborDaemon`` asks it what to serve next.
///
/// ```swift
/// let leadership = Leadership(LeadershipStateMachine(sharedStore: true, leading: true, term: 3, socketAdopted: false), logger: logger)
/// var next = leadership.start()          // .serve(.leader)
/// // … the leader's services run; LeadershipLoss calls `leadership.leadLost(reason:)` …
/// next = leadership.servicesEnded()      // .changeRole(to: .standby, stepDown: true, …)
/// ```
final class Leadership: Sendable {
  private struct Guarded {
    var machine: LeadershipStateMachine
    /// The group of the role served now; nil between roles.
    var group: ServiceGroup?
  }

  private let guarded: LockedState<Guarded>
  private let logger: Logger
  /// The store's name in what is logged.
  private let location: String

  init(_ machine: LeadershipStateMachine, location: String = "the store", logger: Logger) {
    guarded = LockedState(Guarded(machine: machine))
    self.location = location
    self.logger = logger
  }

  /// The machine's state now.
  var state: LeadershipStateMachine.State { guarded.withLock { $0.machine.state } }

  /// The first role to serve.
  func start() -> LeadershipStateMachine.ServeAction { guarded.withLock { $0.machine.start() } }

  /// The group of the role served from now on. An event that came before it (a stop while
  /// the role was being set up) ends it at once.
  func attach(_ group: ServiceGroup) async {
    let endAtOnce = guarded.withLock { guarded -> Bool in
      guarded.group = group
      switch guarded.machine.state {
      case .leading, .following: return false
      case .starting, .takingLead, .steppingDown, .changingRole, .stopping, .stopped: return true
      }
    }
    if endAtOnce { await group.triggerGracefulShutdown() }
  }

  /// A standby's services are about to run.
  func standbyServes() { guarded.withLock { $0.machine.standbyServes() } }

  /// The standby took the lead in `term`.
  func leadTaken(term: Int64) async {
    await run(guarded.withLock { ($0.machine.leadTaken(term: term), $0.group) })
  }

  /// Another daemon leads now.
  func leadLost(reason: String) async {
    await run(guarded.withLock { ($0.machine.leadLost(reason: reason), $0.group) })
  }

  /// The leader's check of its lead went unanswered.
  func leadUnconfirmed(reason: String) async {
    await run(guarded.withLock { ($0.machine.leadUnconfirmed(reason: reason), $0.group) })
  }

  /// The store answered the leader's check.
  func leadConfirmed() async {
    await run(guarded.withLock { ($0.machine.leadConfirmed(), $0.group) })
  }

  /// SIGTERM, SIGINT or ``DaemonStop``.
  func stopRequested() async {
    await run(guarded.withLock { ($0.machine.stopRequested(), $0.group) })
  }

  /// The role's services ended (or never began): what comes next.
  func servicesEnded() -> LeadershipStateMachine.ServeAction {
    guarded.withLock { guarded in
      guarded.group = nil
      return guarded.machine.servicesEnded()
    }
  }

  /// The change of role is done: what to serve.
  func roleChanged() -> LeadershipStateMachine.ServeAction { guarded.withLock { $0.machine.roleChanged() } }

  /// The term the leader serves in, once known.
  func leads(inTerm term: Int64) { guarded.withLock { $0.machine.leads(inTerm: term) } }

  private func run(_ step: (action: LeadershipStateMachine.EventAction, group: ServiceGroup?)) async {
    switch step.action {
    case .endServices:
      await step.group?.triggerGracefulShutdown()
    case .log(.notice, let message):
      logger.notice("\(location): \(message)")
    case .log(.warning, let message):
      logger.warning("\(location): \(message)")
    case .none:
      break
    }
  }
}
