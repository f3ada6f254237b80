@testable import Arbor
import ArborTesting
import Testing

/// `marker` is sent after the events under test, to every station: once a station logged
/// it, every event sent to that station before it has been logged too (a model's events
/// arrive in the order they were sent).
enum Ping: Sendable, Equatable { case ping, pong, marker }

struct Note: Codable, Sendable, Equatable { let text: String }

@Model struct Station {
  enum Event: Sendable, Equatable { case tapped(Int) }
  var name: String
  var stations: [Station] = []
  @ModelIgnored var log = EventLog()

  init(_ name: String, log: EventLog, stations: [Station] = []) {
    self.name = name
    self.log = log
    self.stations = stations
  }

  func onActivate() {
    node.forEach(node.event(ofType: Ping.self)) { [name, log] ping in log.append("\(name) got \(ping)") }
  }

  func tap(_ value: Int) { node.send(.tapped(value)) }
}

/// root ─ a ─ a1
///      └ b
func makeStations(_ log: EventLog) -> (Station, ModelAnchor<Station>) {
  Station("root", log: log, stations: [
    Station("a", log: log, stations: [Station("a1", log: log)]),
    Station("b", log: log),
  ]).andAnchor()
}

/// An event whose comparisons are logged, in the order the receiving sequence makes them.
struct Probe: Sendable, Equatable {
  let number: Int
  let comparisons: EventLog

  static func == (lhs: Probe, rhs: Probe) -> Bool {
    lhs.comparisons.append("compared \(lhs.number)")
    return lhs.number == rhs.number
  }
}

@Suite struct EventTests {
  /// What the stations logged, sorted, once a marker sent after the events under test has
  /// reached every one of `stations`: nothing else is on its way.
  func received(_ log: EventLog, root: Station, stations: Set<String> = ["root", "a", "a1", "b"]) async -> [String] {
    root.node.send(Ping.marker, to: [.self, .descendants])
    let markers = Set(stations.map { "\($0) got marker" })
    await expectEventually("the marker to reach \(stations.sorted().joined(separator: ", "))") {
      markers.isSubset(of: Set(log.all))
    }
    #expect(log.all.filter { $0.hasSuffix(" got marker") }.count == stations.count, "each station got the marker once")
    return log.all.filter { !$0.hasSuffix(" got marker") }.sorted()
  }

  @Test func byDefaultAnEventGoesToTheSenderAndItsAncestors() async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.stations[0].stations[0].node.send(Ping.ping)
    #expect(await received(log, root: root) == ["a got ping", "a1 got ping", "root got ping"])
    _ = anchor
  }

  static let relationCases: [(ModelRelation, [String])] = [
    (.self, ["a got ping"]),
    (.parent, ["root got ping"]),
    (.ancestors, ["root got ping"]),
    (.children, ["a1 got ping"]),
    (.descendants, ["a1 got ping"]),
    ([.self, .children], ["a got ping", "a1 got ping"]),
    ([.parent, .descendants], ["a1 got ping", "root got ping"]),
  ]

  @Test(arguments: relationCases)
  func eachRelation(relation: ModelRelation, expected: [String]) async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.stations[0].node.send(Ping.ping, to: relation)
    #expect(await received(log, root: root) == expected)
    _ = anchor
  }

  @Test func eventOfMatchesAValue() async {
    let log = EventLog()
    let comparisons = EventLog()
    let (root, anchor) = makeStations(log)
    root.node.forEach(root.node.event(of: Probe(number: 2, comparisons: EventLog()))) {
      comparisons.append("matched")
    }
    for number in 1...3 { root.stations[1].node.send(Probe(number: number, comparisons: comparisons)) }
    // The sequence compares each event in turn and runs the work of a match before it takes
    // the next event: once 3 is compared, everything before it is done.
    await expectEventually("the third probe to be compared") { comparisons.all.contains("compared 3") }
    #expect(comparisons.all == ["compared 1", "compared 2", "matched", "compared 3"])
    _ = anchor
  }

  @Test func eventFromTypeYieldsTheEventAndTheSender() async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.node.forEach(root.node.event(fromType: Station.self)) { event, sender in
      log.append("\(sender.name) sent \(event)")
    }
    root.stations[0].stations[0].tap(7)
    await expectEventually("the event and its sender") { log.all == ["a1 sent tapped(7)"] }
    _ = anchor
  }

  /// The stations with one more station held under both `a` and `b`.
  func makeStationsWithSharedChild(_ log: EventLog) -> (Station, Station, ModelAnchor<Station>) {
    let (root, anchor) = makeStations(log)
    let shared = Station("shared", log: log)
    root.node.transaction {
      root.stations[0].stations.append(shared)
      root.stations[1].stations.append(shared)
    }
    return (root, shared, anchor)
  }

  @Test func aSharedModelsEventReachesEachReceiverOnce() async {
    let log = EventLog()
    let (root, shared, anchor) = makeStationsWithSharedChild(log)
    shared.node.send(Ping.ping)
    #expect(
      await received(log, root: root, stations: ["root", "a", "a1", "b", "shared"])
        == ["a got ping", "b got ping", "root got ping", "shared got ping"])
    _ = anchor
  }

  @Test func aSharedModelReceivesAnEventOnce() async {
    let log = EventLog()
    let (root, _, anchor) = makeStationsWithSharedChild(log)
    root.node.send(Ping.pong, to: .descendants)
    #expect(
      await received(log, root: root, stations: ["root", "a", "a1", "b", "shared"])
        == ["a got pong", "a1 got pong", "b got pong", "shared got pong"])
    _ = anchor
  }

  @Test func eventsAreRecordedWithTheirRevisionAndExportability() async throws {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    let events = DeadlineIterator(anchor.events())
    root.name = "renamed"
    root.stations[1].node.send(Note(text: "hello"))
    root.stations[1].node.send(Ping.ping)
    let first = try await events.next("the Note event")
    #expect(first.revision == 1)
    #expect(first.sourcePath.description == "/stations/1")
    #expect(first.isExportable)
    #expect(first.event as? Note == Note(text: "hello"))
    #expect(first.type == "Note")
    #expect(first.sourceType == "Station")
    let second = try await events.next("the Ping event")
    #expect(!second.isExportable, "an event that is not Codable stays inside")
    #expect(second.type == "Ping")
    root.stations[0].tap(3)
    let third = try await events.next("the Station.Event event")
    #expect(third.type == "Station.Event", "a nested type is named with its enclosing type")
    _ = anchor
  }
}
