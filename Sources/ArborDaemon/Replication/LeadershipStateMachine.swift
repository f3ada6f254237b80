/// Which role a daemon serves its store in, and what it does next, as one value: every
/// event is a `mutating func` that returns the action to take, and nothing here does I/O.
/// ``Leadership`` holds it behind a lock and runs its actions; the tests drive it alone
/// (`LeadershipStateMachineTests`), every event in every state.
///
/// A store one daemon owns (SQLite) is served as its leader until the daemon stops. A
/// shared store (``StoreLeadership``, PostgreSQL) is served as its leader or as a standby
/// of the daemon that leads it, and the role changes as the lead changes hands:
///
/// ```
/// starting ──▶ leading ──lead lost──▶ steppingDown ──services ended──▶ changingRole ──▶ following
///    │            ▲                                                                        │
///    └──────────▶ │ ◀──roleChanged── changingRole ◀──services ended── takingLead ◀─lead taken─┘
/// any state ──stop requested──▶ stopping ──services ended──▶ stopped
/// ```
///
/// ```swift
/// var machine = LeadershipStateMachine(sharedStore: true, leading: false, term: 0, socketAdopted: false)
/// machine.start()                        // .serve(.standby)
/// machine.leadTaken(term: 4)             // .endServices
/// machine.servicesEnded()                // .changeRole(to: .leader, stepDown: false, reopenSocket: true, reason: …)
/// machine.roleChanged()                  // .serve(.leader)
/// ```
struct LeadershipStateMachine: Sendable {
  /// The two ways a daemon serves a store.
  enum Role: Sendable, Hashable, CustomStringConvertible {
    /// It restores the tree, runs intents and writes the store.
    case leader
    /// It follows the leader's journal for reads and watches, and writes nothing.
    case standby

    var description: String { self == .leader ? "leader" : "standby" }
  }

  enum State: Sendable, Hashable {
    /// The store is open; no role is served yet.
    case starting
    /// Serving as the leader in `term` (0 for a store one daemon owns); `confirmed` is
    /// false while the store has not answered the last check of the lead.
    case leading(term: Int64, confirmed: Bool)
    /// Serving as a standby; `servedSocket` once its services (and socket) ran.
    case following(servedSocket: Bool)
    /// A standby that took the lead in `term`: its services end, then it leads.
    case takingLead(term: Int64, servedSocket: Bool)
    /// A leader that lost the lead: its services end, then it steps down and follows.
    case steppingDown(reason: String)
    /// Between two roles: the store steps down or the socket is made ready again.
    case changingRole(to: Role)
    /// A stop was asked for: the services end, then the daemon exits.
    case stopping
    /// The daemon serves nothing more.
    case stopped
  }

  /// What the daemon does when it is told to serve (``start()``), or when a role's
  /// services have ended (``servicesEnded()``, ``roleChanged()``).
  enum ServeAction: Sendable, Hashable {
    /// Run the role's services until they end.
    case serve(Role)
    /// Change roles before serving again: step the store down (a leader that lost the
    /// lead), make the socket ready again (the previous role's server closed it), then
    /// call ``roleChanged()``.
    case changeRole(to: Role, stepDown: Bool, reopenSocket: Bool, reason: String)
    /// The socket systemd passed went with the previous role's server: end the process
    /// with `reason`, and systemd starts it again (`Restart=`) in the role it then finds.
    case restart(reason: String)
    /// Close the store and return: the daemon has stopped.
    case exit
  }

  /// What the daemon does at an event that comes while a role is served.
  enum EventAction: Sendable, Hashable {
    /// End the role's services gracefully (``servicesEnded()`` comes next).
    case endServices
    /// Say `message` at `level` in the log; nothing else changes.
    case log(LogLevel, String)
    /// Nothing to do.
    case none
  }

  /// How loud a ``EventAction/log(_:_:)`` is.
  enum LogLevel: Sendable, Hashable { case notice, warning }

  private(set) var state: State = .starting
  /// Whether the store is shared (it has standbys), else one daemon owns it.
  let sharedStore: Bool
  /// Whether the socket was passed by systemd, which cannot be bound again in-process.
  let socketAdopted: Bool
  private let leadingAtOpen: Bool
  private let termAtOpen: Int64

  /// - Parameters:
  ///   - sharedStore: whether the store has a leadership (``StateStore/leadership``).
  ///   - leading: whether opening the store made this daemon its leader (always for a
  ///     store one daemon owns).
  ///   - term: the term it leads in (0 for a store one daemon owns, or a standby).
  ///   - socketAdopted: whether systemd passed the socket.
  init(sharedStore: Bool, leading: Bool, term: Int64, socketAdopted: Bool) {
    self.sharedStore = sharedStore
    self.socketAdopted = socketAdopted
    self.leadingAtOpen = leading || !sharedStore
    self.termAtOpen = term
  }

  /// The first role, once the store is open.
  mutating func start() -> ServeAction {
    guard case .starting = state else { return serveAction() }
    if leadingAtOpen {
      state = .leading(term: termAtOpen, confirmed: true)
      return .serve(.leader)
    }
    state = .following(servedSocket: false)
    return .serve(.standby)
  }

  /// A standby's services are about to run (its socket is served from now on).
  mutating func standbyServes() {
    if case .following(servedSocket: false) = state { state = .following(servedSocket: true) }
  }

  /// The standby found the lead free and took it, in `term`.
  mutating func leadTaken(term: Int64) -> EventAction {
    switch state {
    case .following(let served):
      state = .takingLead(term: term, servedSocket: served)
      return .endServices
    case .starting, .leading, .takingLead, .steppingDown, .changingRole, .stopping, .stopped:
      // Only a standby takes the lead; a stopping daemon lets it go as it closes the store.
      return .none
    }
  }

  /// The leader learnt that another daemon leads now: its term was raised elsewhere, or its
  /// session was lost and another daemon took the lock meanwhile.
  mutating func leadLost(reason: String) -> EventAction {
    switch state {
    case .leading(_, _) where sharedStore:
      state = .steppingDown(reason: reason)
      return .endServices
    case .starting, .leading, .following, .takingLead, .steppingDown, .changingRole, .stopping, .stopped:
      return .none
    }
  }

  /// The leader's check of its lead went unanswered (the server cannot be reached now):
  /// the lead is neither confirmed nor lost. Said once until a check answers again.
  mutating func leadUnconfirmed(reason: String) -> EventAction {
    guard case .leading(let term, let confirmed) = state else { return .none }
    state = .leading(term: term, confirmed: false)
    return confirmed ? .log(.warning, "the lead could not be confirmed: \(reason)") : .none
  }

  /// The store answered the leader's check: this daemon still leads.
  mutating func leadConfirmed() -> EventAction {
    guard case .leading(let term, let confirmed) = state else { return .none }
    state = .leading(term: term, confirmed: true)
    return confirmed ? .none : .log(.notice, "the lead is confirmed again")
  }

  /// SIGTERM, SIGINT or ``DaemonStop``: whatever the role or the change under way, the
  /// daemon stops.
  mutating func stopRequested() -> EventAction {
    switch state {
    case .starting, .changingRole:
      state = .stopping
      return .none
    case .leading, .following, .takingLead, .steppingDown:
      state = .stopping
      return .endServices
    case .stopping, .stopped:
      return .none
    }
  }

  /// The role's services ended: by a stop, by a change of lead, or on their own (a
  /// service that ended the group). What comes next.
  mutating func servicesEnded() -> ServeAction {
    switch state {
    case .takingLead(_, let served):
      state = .changingRole(to: .leader)
      if !served { return roleChanged() }
      return changeRole(to: .leader, stepDown: false, reason: "took the lead as a standby")
    case .steppingDown(let reason):
      state = .changingRole(to: .standby)
      return changeRole(to: .standby, stepDown: true, reason: "lost the lead (\(reason))")
    case .starting, .leading, .following, .changingRole, .stopping, .stopped:
      state = .stopped
      return .exit
    }
  }

  /// The store stepped down and the socket is ready again: serve the new role (unless a
  /// stop came meanwhile).
  mutating func roleChanged() -> ServeAction {
    guard case .changingRole(let role) = state else { return serveAction() }
    state = role == .leader ? .leading(term: 0, confirmed: true) : .following(servedSocket: false)
    return .serve(role)
  }

  /// The leader's term, once it is known to the daemon (a standby that took the lead reads
  /// it from the store as it serves).
  mutating func leads(inTerm term: Int64) {
    if case .leading(_, let confirmed) = state { state = .leading(term: term, confirmed: confirmed) }
  }

  private func changeRole(to role: Role, stepDown: Bool, reason: String) -> ServeAction {
    if socketAdopted { return .restart(reason: "\(reason) on a socket systemd passed: restarting to serve in its new role") }
    return .changeRole(to: role, stepDown: stepDown, reopenSocket: true, reason: reason)
  }

  /// What a call out of turn answers: serve what is served, or exit once stopping.
  private mutating func serveAction() -> ServeAction {
    switch state {
    case .leading: return .serve(.leader)
    case .following: return .serve(.standby)
    case .starting, .takingLead, .steppingDown, .changingRole, .stopping, .stopped:
      state = .stopped
      return .exit
    }
  }
}
