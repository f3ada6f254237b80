@testable import Arbor
import ArborTesting
import ConcurrencyExtras
import Dependencies
import Testing

struct Greeter: DependencyKey, Sendable {
  var greet: @Sendable (String) -> String
  static let liveValue = Greeter { "hello \($0)" }
  static let testValue = Greeter { "test \($0)" }
}

extension DependencyValues {
  var greeter: Greeter {
    get { self[Greeter.self] }
    set { self[Greeter.self] = newValue }
  }
}

/// A model used as a dependency: one shared instance per tree.
@Model struct Analytics {
  var events: [String] = []
  @ModelIgnored var log: EventLog?

  init(log: EventLog? = nil) { self.log = log }

  func onActivate() {
    log?.append("analytics active")
    node.onCancel { [log] in log?.append("analytics inactive") }
    node.forEach(node.event(ofType: Ping.self)) { [log] ping in log?.append("analytics got \(ping)") }
  }

  func track(_ event: String) { events.append(event) }
}

extension Analytics: DependencyKey {
  static let liveValue = Analytics()
  static let testValue = Analytics()
}

/// A key whose type is not the model's own: reached by key type and by key path, it must
/// still give one instance per tree.
enum AuditKey: DependencyKey {
  static let liveValue = Analytics()
  static let testValue = Analytics()
}

extension DependencyValues {
  var audit: Analytics {
    get { self[AuditKey.self] }
    set { self[AuditKey.self] = newValue }
  }

  var analytics: Analytics {
    get { self[Analytics.self] }
    set { self[Analytics.self] = newValue }
  }
}

@Model struct Greeting {
  var name: String
  var children: [Greeting] = []
  @ModelDependency var greeter: Greeter

  init(_ name: String, children: [Greeting] = []) {
    self.name = name
    self.children = children
  }

  var text: String { node.greeter.greet(name) }
  var viaMacro: String { greeter.greet(name) }
  var viaKey: String { node[Greeter.self].greet(name) }
}

@Suite struct DependencyTests {
  @Test func testValuesAreUsedUnderTests() {
    let model = Greeting("a").withAnchor()
    #expect(model.text == "test a")
    #expect(model.viaMacro == "test a")
    #expect(model.viaKey == "test a")
  }

  @Test func overridesAtTheAnchorReachEveryDescendant() {
    let root = Greeting("root", children: [Greeting("child", children: [Greeting("grandchild")])]).withAnchor {
      $0.greeter = Greeter { "anchor \($0)" }
    }
    #expect(root.text == "anchor root")
    #expect(root.children[0].children[0].text == "anchor grandchild")
  }

  @Test func overridesAtThreeLevels() {
    let grandchild = Greeting("grandchild").withDependencies { $0.greeter = Greeter { "level3 \($0)" } }
    let child = Greeting("child", children: [grandchild, Greeting("sibling")])
      .withDependencies { $0.greeter = Greeter { "level2 \($0)" } }
    let root = Greeting("root", children: [child, Greeting("other")]).withAnchor {
      $0.greeter = Greeter { "level1 \($0)" }
    }
    #expect(root.text == "level1 root")
    #expect(root.children[1].text == "level1 other")
    #expect(root.children[0].text == "level2 child")
    #expect(root.children[0].children[1].text == "level2 sibling")
    #expect(root.children[0].children[0].text == "level3 grandchild")
  }

  @Test func overridesRunWithNoLockHeld() {
    // An override is user code: it may read the tree, or wait for a thread that does.
    let tree = LockIsolated<Greeting?>(nil)
    let probes = LockIsolated<[Bool]>([])
    let child = Greeting("child").withDependencies { values in
      let free = OtherThread.finishes { _ = tree.value?.children.first?.name }
      probes.withValue { $0.append(free) }
      values.greeter = Greeter { "override \($0)" }
    }
    let root = Greeting("root", children: [Greeting("middle", children: [child])]).withAnchor()
    tree.setValue(root)
    #expect(root.children[0].children[0].text == "override child")
    #expect(root.children[0].children[0].viaKey == "override child")
    #expect(probes.value.contains(true))
    #expect(!probes.value.contains(false), "an override ran with the tree lock held")
  }

  @Test func aModelAddedLaterInheritsFromItsPointOfEntry() {
    let root = Greeting("root", children: [Greeting("branch").withDependencies { $0.greeter = Greeter { "branch \($0)" } }])
      .withAnchor { $0.greeter = Greeter { "root \($0)" } }
    let late = Greeting("late")
    root.children[0].children.append(late)
    #expect(late.text == "branch late")
    let atRoot = Greeting("top")
    root.children.append(atRoot)
    #expect(atRoot.text == "root top")
  }

  @Test func tasksSeeTheModelsDependencies() async {
    let model = Greeting("task").withAnchor { $0.greeter = Greeter { "anchored \($0)" } }
    let result = EventLog()
    model.node.task {
      @Dependency(\.greeter) var greeter
      result.append(greeter.greet("inside"))
    }
    await expectEventually("the task to greet with the anchor's greeter") { result.all == ["anchored inside"] }
  }
}

@Model struct Host {
  var name: String
  var hosts: [Host] = []

  init(_ name: String, hosts: [Host] = []) {
    self.name = name
    self.hosts = hosts
  }

  var analytics: Analytics { node.analytics }
}

@Suite struct ModelDependencyTests {
  @Test func aModelDependencyIsOneSharedInstancePerTree() {
    let log = EventLog()
    let root = Host("root", hosts: [Host("a"), Host("b")]).withAnchor { $0.analytics = Analytics(log: log) }
    let fromA = root.hosts[0].analytics
    let fromB = root.hosts[1].analytics
    #expect(fromA.id == fromB.id)
    fromA.track("x")
    #expect(fromB.events == ["x"])
    #expect(log.all == ["analytics active"], "activated once, on first use")

    let other = Host("other").withAnchor { $0.analytics = Analytics(log: log) }
    #expect(other.analytics.id != fromA.id, "another tree has its own instance")
    #expect(other.analytics.events == [])
  }

  @Test func keyTypeAndKeyPathReachTheSameInstance() {
    let root = Host("root").withAnchor()
    let byKey = root.node[AuditKey.self]
    let byKeyPath = root.node.audit
    #expect(byKey.id == byKeyPath.id)
    byKey.track("z")
    #expect(byKeyPath.events == ["z"])
  }

  @Test func aModelDependencyIsDeactivatedWhenItsLastHostGoes() {
    let log = EventLog()
    let (root, anchor) = Host("root", hosts: [Host("a"), Host("b")]).andAnchor { $0.analytics = Analytics(log: log) }
    _ = root.hosts[0].analytics
    _ = root.hosts[1].analytics
    root.hosts.removeFirst()
    #expect(!log.all.contains("analytics inactive"))
    root.hosts.removeFirst()
    #expect(log.all.contains("analytics inactive"))
    _ = anchor
  }

  @Test func hostsObserveADependencyModel() async throws {
    let root = Host("root").withAnchor { $0.analytics = Analytics() }
    let counts = DeadlineIterator(Observed { root.analytics.events.count })
    #expect(try await counts.next("the first count") == 0)
    root.analytics.track("y")
    #expect(try await counts.next("the count after tracking") == 1)
  }

  @Test func eventsOfADependencyReachItsHostsAndTheDependenciesRelationReachesIt() async {
    let log = EventLog()
    let root = Host("root").withAnchor { $0.analytics = Analytics(log: log) }
    let analytics = root.analytics
    root.node.forEach(root.node.event(ofType: Ping.self)) { log.append("host got \($0)") }
    analytics.node.send(Ping.ping)
    await expectEventually("the ping to reach the host and the dependency") {
      log.all.contains("host got ping") && log.all.contains("analytics got ping")
    }
    root.node.send(Ping.pong, to: [.children, .dependencies])
    await expectEventually("the pong to reach the dependency") { log.all.contains("analytics got pong") }
    root.node.send(Ping.ping, to: .children)
    // A second pong takes the same path after the ping: once it has arrived, the ping would
    // have arrived too.
    root.node.send(Ping.pong, to: [.children, .dependencies])
    await expectEventually("the second pong to reach the dependency") {
      log.all.filter { $0 == "analytics got pong" }.count == 2
    }
    #expect(log.all.filter { $0 == "analytics got ping" }.count == 1, "without .dependencies the relation does not reach it")
  }
}
