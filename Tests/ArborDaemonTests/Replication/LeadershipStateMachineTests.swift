@testable import ArborDaemon
import Testing

/// The leadership state machine alone, without a server: each transition the daemon
/// relies on, then every pair of events in every state it can reach, against the rules
/// that keep a daemon from serving two roles, ignoring a stop, or reopening a socket
/// systemd passed. The real-server tests (`TakeoverTests`, `NetworkCutTests`,
/// `PostgresStoreDaemonTests`) stay the end-to-end check.
@Suite struct LeadershipStateMachineTests {
  typealias Machine = LeadershipStateMachine

  /// Every event the machine takes.
  enum Event: CaseIterable {
    case start, standbyServes, leadTaken, leadLost, leadUnconfirmed, leadConfirmed, stopRequested, servicesEnded, roleChanged
  }

  /// What one event answered.
  enum Answer: Hashable {
    case serve(Machine.ServeAction)
    case event(Machine.EventAction)
    case nothing
  }

  @discardableResult
  static func apply(_ event: Event, to machine: inout Machine) -> Answer {
    switch event {
    case .start: return .serve(machine.start())
    case .standbyServes:
      machine.standbyServes()
      return .nothing
    case .leadTaken: return .event(machine.leadTaken(term: 7))
    case .leadLost: return .event(machine.leadLost(reason: "term raised"))
    case .leadUnconfirmed: return .event(machine.leadUnconfirmed(reason: "no answer"))
    case .leadConfirmed: return .event(machine.leadConfirmed())
    case .stopRequested: return .event(machine.stopRequested())
    case .servicesEnded: return .serve(machine.servicesEnded())
    case .roleChanged: return .serve(machine.roleChanged())
    }
  }

  static func machine(shared: Bool = true, leading: Bool, adopted: Bool = false, after events: [Event] = []) -> Machine {
    var machine = Machine(sharedStore: shared, leading: leading, term: leading ? 3 : 0, socketAdopted: adopted)
    for event in events { apply(event, to: &machine) }
    return machine
  }

  // MARK: The transitions the daemon relies on

  @Test func aStoreOneDaemonOwnsIsLedOnceUntilTheStop() {
    var machine = Self.machine(shared: false, leading: false)
    #expect(machine.start() == .serve(.leader), "a store without standbys is always led")
    #expect(machine.leadLost(reason: "x") == .none, "nobody else can lead it")
    #expect(machine.stopRequested() == .endServices)
    #expect(machine.servicesEnded() == .exit)
    #expect(machine.state == .stopped)
  }

  @Test func aLeaderThatLosesTheLeadStepsDownReopensItsSocketAndFollows() {
    var machine = Self.machine(leading: true)
    #expect(machine.start() == .serve(.leader))
    #expect(machine.state == .leading(term: 3, confirmed: true))
    #expect(machine.leadLost(reason: "term 4 elsewhere") == .endServices)
    #expect(machine.state == .steppingDown(reason: "term 4 elsewhere"))
    #expect(machine.leadLost(reason: "again") == .none, "the services end once")
    #expect(machine.servicesEnded() == .changeRole(to: .standby, stepDown: true, reopenSocket: true, reason: "lost the lead (term 4 elsewhere)"))
    #expect(machine.roleChanged() == .serve(.standby))
    #expect(machine.state == .following(servedSocket: false))
  }

  @Test func aStandbyThatTakesTheLeadReopensItsSocketAndLeads() {
    var machine = Self.machine(leading: false)
    #expect(machine.start() == .serve(.standby))
    machine.standbyServes()
    #expect(machine.leadTaken(term: 4) == .endServices)
    #expect(machine.servicesEnded() == .changeRole(to: .leader, stepDown: false, reopenSocket: true, reason: "took the lead as a standby"))
    #expect(machine.roleChanged() == .serve(.leader))
    machine.leads(inTerm: 4)
    #expect(machine.state == .leading(term: 4, confirmed: true))
  }

  @Test func aStandbyThatTookTheLeadBeforeServingLeadsAtOnceEvenOnASocketSystemdPassed() {
    // The leader had saved no snapshot yet: the standby served nothing, so the socket
    // systemd passed is unused and no restart is needed.
    var machine = Self.machine(leading: false, adopted: true)
    #expect(machine.start() == .serve(.standby))
    #expect(machine.leadTaken(term: 2) == .endServices)
    #expect(machine.servicesEnded() == .serve(.leader))
  }

  @Test func aChangeOfRoleOnASocketSystemdPassedRestartsTheProcess() {
    var leader = Self.machine(leading: true, adopted: true, after: [.start, .leadLost])
    guard case .restart(let reason) = leader.servicesEnded() else {
      Issue.record("a leader that lost the lead on an adopted socket must restart")
      return
    }
    #expect(reason.contains("systemd"), "\(reason)")
    var standby = Self.machine(leading: false, adopted: true, after: [.start, .standbyServes, .leadTaken])
    guard case .restart = standby.servicesEnded() else {
      Issue.record("a standby that served the adopted socket must restart to lead")
      return
    }
  }

  @Test func aStopWinsOverALossOfTheLeadThatCameAtTheSameTime() {
    // SIGTERM and a lost lead in either order: the daemon exits; it does not go on as a
    // standby (before the state machine, the lost lead won and the stop was forgotten).
    var lostFirst = Self.machine(leading: true, after: [.start, .leadLost])
    #expect(lostFirst.stopRequested() == .endServices)
    #expect(lostFirst.servicesEnded() == .exit)
    var stopFirst = Self.machine(leading: true, after: [.start, .stopRequested])
    #expect(stopFirst.leadLost(reason: "x") == .none)
    #expect(stopFirst.servicesEnded() == .exit)
  }

  @Test func aStopDuringAChangeOfRoleEndsIt() {
    var machine = Self.machine(leading: true, after: [.start, .leadLost, .servicesEnded])
    #expect(machine.state == .changingRole(to: .standby))
    #expect(machine.stopRequested() == .none, "no services run to end")
    #expect(machine.roleChanged() == .exit)
  }

  @Test func anUnansweredCheckIsSaidOnceUntilACheckAnswersAgain() {
    var machine = Self.machine(leading: true, after: [.start])
    #expect(machine.leadConfirmed() == .none)
    guard case .log(.warning, let message) = machine.leadUnconfirmed(reason: "no answer within 3 s") else {
      Issue.record("the first unanswered check is said")
      return
    }
    #expect(message.contains("no answer within 3 s"))
    #expect(machine.leadUnconfirmed(reason: "no answer within 3 s") == .none, "said once")
    #expect(machine.state == .leading(term: 3, confirmed: false))
    #expect(machine.leadConfirmed() == .log(.notice, "the lead is confirmed again"))
    #expect(machine.leadConfirmed() == .none)
  }

  // MARK: Every pair of events in every state

  /// Every state the machine reaches from any configuration within `depth` events, with
  /// the machine that is in it.
  static func reachable(depth: Int = 5) -> [Machine] {
    var found: [Machine] = []
    var seen = Set<String>()
    for shared in [true, false] {
      for leading in [true, false] {
        for adopted in [true, false] {
          var frontier = [machine(shared: shared, leading: leading, adopted: adopted)]
          for _ in 0...depth {
            var next: [Machine] = []
            for machine in frontier {
              let key = "\(shared) \(adopted) \(machine.state)"
              guard seen.insert(key).inserted else { continue }
              found.append(machine)
              for event in Event.allCases {
                var copy = machine
                apply(event, to: &copy)
                next.append(copy)
              }
            }
            frontier = next
          }
        }
      }
    }
    return found
  }

  @Test func everyStateIsReached() {
    let states = Set(Self.reachable().map { "\($0.state)".prefix { $0 != "(" } })
    #expect(
      states == ["starting", "leading", "following", "takingLead", "steppingDown", "changingRole", "stopping", "stopped"],
      "\(states.sorted())")
  }

  @Test func everyPairOfEventsInEveryStateKeepsTheRules() {
    let machines = Self.reachable()
    #expect(machines.count >= 20, "\(machines.count) states")
    for machine in machines {
      for first in Event.allCases {
        for second in Event.allCases {
          var copy = machine
          let answers = [Self.apply(first, to: &copy), Self.apply(second, to: &copy)]
          Self.checkRules(from: machine, events: [first, second], answers: answers, end: copy)
        }
      }
    }
  }

  /// The rules every transition keeps.
  static func checkRules(from machine: Machine, events: [Event], answers: [Answer], end: Machine) {
    let context = "from \(machine.state) (shared \(machine.sharedStore), adopted \(machine.socketAdopted)) by \(events): \(answers) to \(end.state)"
    var stopped = machine.state == .stopping || machine.state == .stopped
    for (event, answer) in zip(events, answers) {
      if event == .stopRequested { stopped = true }
      switch answer {
      case .serve(.serve(let role)), .serve(.changeRole(let role, _, _, _)):
        // A stop is never forgotten: once asked for, nothing is served again.
        #expect(!stopped, "served \(role) after a stop: \(context)")
        // A store one daemon owns is never served as a standby.
        #expect(machine.sharedStore || role == .leader, "\(context)")
      case .serve(.restart):
        #expect(!stopped, "restarted after a stop: \(context)")
        #expect(machine.socketAdopted, "only an adopted socket restarts the process: \(context)")
      case .serve(.exit), .event(.log), .event(.none), .nothing:
        break
      case .event(.endServices):
        // Services are ended only while a role's services may run.
        switch machine.state {
        case .leading, .following, .takingLead, .steppingDown, .starting, .changingRole: break
        case .stopping, .stopped: Issue.record("ended services while stopping: \(context)")
        }
      }
      if case .serve(.changeRole(_, _, let reopens, _)) = answer {
        #expect(!(reopens && machine.socketAdopted), "reopened a socket systemd passed: \(context)")
      }
      if case .serve(.changeRole(let role, let stepsDown, _, _)) = answer {
        #expect(stepsDown == (role == .standby), "only a change to standby steps the store down: \(context)")
      }
    }
    // Stopped is final, and a stop ends in it once the services end.
    if machine.state == .stopped { #expect(end.state == .stopped, "\(context)") }
    if stopped {
      var after = end
      #expect(after.servicesEnded() == .exit, "\(context)")
      #expect(after.state == .stopped, "\(context)")
    }
    // Only a standby takes the lead; only a leader of a shared store loses it.
    if events == [.leadTaken, .leadTaken], case .leading = machine.state { #expect(end.state == machine.state, "\(context)") }
    if events.first == .leadLost, case .following = machine.state { #expect(answers.first == .event(.none), "\(context)") }
    if !machine.sharedStore {
      #expect(end.state != .steppingDown(reason: "term raised"), "\(context)")
      if case .takingLead = end.state { Issue.record("a store one daemon owns changed hands: \(context)") }
    }
  }
}
