import ArborStorage
import ArborTesting
import Logging
import ServiceLifecycle
import StoreDoubles
import Synchronization
import Testing

@testable import ArborDaemon

/// The services that tell ``Leadership`` of a change of lead, in a real `ServiceGroup`
/// beside a service that takes its time to stop (as the socket server does while it
/// drains): the group ends gracefully, in its order, and the machine knows what comes next.
/// A service that ended on its own while the group shut down was an error to the group,
/// which ended the whole daemon (seen under load in `NetworkCutTests` and
/// `PostgresStoreDaemonTests`).
@Suite struct LeadershipServicesTests {
  static let logger = Logger(label: "arbor.tests.leadership")

  /// The order in which the group's services ended.
  final class Endings: Sendable {
    private let names = Mutex<[String]>([])
    func ended(_ name: String) { names.withLock { $0.append(name) } }
    var all: [String] { names.withLock { $0 } }
  }

  /// Stops half a second after it is asked to, as a draining socket server does.
  struct SlowToStop: Service {
    let endings: Endings
    func run() async throws {
      try? await gracefulShutdown()
      try? await Task.sleep(for: .milliseconds(500))
      endings.ended("slow")
    }
  }

  /// `inner`, noting when it ended.
  struct Noted<Inner: Service>: Service {
    let inner: Inner
    let endings: Endings
    func run() async throws {
      try await inner.run()
      endings.ended("leadership")
    }
  }

  /// Runs `first` and a slow service in a group that `leadership` ends: the group must
  /// end without an error, and `first` only after the slow one (the group's order).
  static func runGroup(_ first: some Service, _ leadership: Leadership) async throws {
    let endings = Endings()
    let group = ServiceGroup(
      configuration: ServiceGroupConfiguration(
        services: [
          .init(service: Noted(inner: first, endings: endings), successTerminationBehavior: .ignore),
          .init(service: SlowToStop(endings: endings)),
        ], logger: logger))
    await leadership.attach(group)
    try await withDeadline("the group to end after the change of lead", seconds: 20) { try await group.run() }
    #expect(endings.all == ["slow", "leadership"], "a service that ends on its own while the group shuts down ends the daemon")
  }

  @Test func aStandbyThatTakesTheLeadEndsItsGroupGracefully() async throws {
    let store = SharedMemoryStore()
    let leadership = Leadership(LeadershipStateMachine(sharedStore: true, leading: false, term: 0, socketAdopted: false), logger: Self.logger)
    #expect(leadership.start() == .serve(.standby))
    leadership.standbyServes()
    try await Self.runGroup(LeadershipWatch(store: store, leadership: leadership, interval: .milliseconds(10), logger: Self.logger), leadership)
    #expect(store.isLeading)
    #expect(leadership.servicesEnded() == .changeRole(to: .leader, stepDown: false, reopenSocket: true, reason: "took the lead as a standby"))
  }

  @Test func aLeaderThatLosesTheLeadEndsItsGroupGracefully() async throws {
    let store = SharedMemoryStore()
    _ = try await store.tryToLead()
    let writer = JournalWriter(store: store)
    let leadership = Leadership(LeadershipStateMachine(sharedStore: true, leading: true, term: 1, socketAdopted: false), logger: Self.logger)
    #expect(leadership.start() == .serve(.leader))
    // Another daemon takes the lead: this store's next check finds it superseded.
    await store.stepDown()
    try await Self.runGroup(
      LeadershipLoss(store: store, writer: writer, leadership: leadership, interval: .milliseconds(10), logger: Self.logger), leadership)
    guard case .changeRole(.standby, stepDown: true, reopenSocket: true, _) = leadership.servicesEnded() else {
      Issue.record("a leader that lost the lead steps down and follows")
      return
    }
  }
}
