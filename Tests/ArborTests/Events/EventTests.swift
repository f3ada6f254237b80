@testable import Arbor
import Testing

enum Ping: Sendable, Equatable { case ping, pong }

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

@Suite struct EventTests {
  func received(_ log: EventLog, count: Int) async -> [String] {
    _ = await eventually { log.all.count >= count }
    try? await Task.sleep(for: .milliseconds(20))
    return log.all.sorted()
  }

  @Test func byDefaultAnEventGoesToTheSenderAndItsAncestors() async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.stations[0].stations[0].node.send(Ping.ping)
    #expect(await received(log, count: 3) == ["a got ping", "a1 got ping", "root got ping"])
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
    #expect(await received(log, count: expected.count) == expected)
    _ = anchor
  }

  @Test func eventOfMatchesAValue() async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.node.forEach(root.node.event(of: Ping.pong)) { log.append("pong seen") }
    root.stations[1].node.send(Ping.ping)
    root.stations[1].node.send(Ping.pong)
    _ = await eventually { log.all.contains("pong seen") }
    #expect(log.all.filter { $0 == "pong seen" }.count == 1)
    _ = anchor
  }

  @Test func eventFromTypeYieldsTheEventAndTheSender() async {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    root.node.forEach(root.node.event(fromType: Station.self)) { event, sender in
      log.append("\(sender.name) sent \(event)")
    }
    root.stations[0].stations[0].tap(7)
    #expect(await eventually { log.all == ["a1 sent tapped(7)"] })
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
    let (_, shared, anchor) = makeStationsWithSharedChild(log)
    shared.node.send(Ping.ping)
    #expect(await received(log, count: 4) == ["a got ping", "b got ping", "root got ping", "shared got ping"])
    _ = anchor
  }

  @Test func aSharedModelReceivesAnEventOnce() async {
    let log = EventLog()
    let (root, _, anchor) = makeStationsWithSharedChild(log)
    root.node.send(Ping.pong, to: .descendants)
    #expect(await received(log, count: 4) == ["a got pong", "a1 got pong", "b got pong", "shared got pong"])
    _ = anchor
  }

  @Test func eventsAreRecordedWithTheirRevisionAndExportability() async throws {
    let log = EventLog()
    let (root, anchor) = makeStations(log)
    let events = anchor.events()
    root.name = "renamed"
    root.stations[1].node.send(Note(text: "hello"))
    root.stations[1].node.send(Ping.ping)
    var iterator = events.makeAsyncIterator()
    let first = try #require(await iterator.next())
    #expect(first.revision == 1)
    #expect(first.sourcePath.description == "/stations/1")
    #expect(first.isExportable)
    #expect(first.event as? Note == Note(text: "hello"))
    #expect(first.type == "Note")
    #expect(first.sourceType == "Station")
    let second = try #require(await iterator.next())
    #expect(!second.isExportable, "an event that is not Codable stays inside")
    #expect(second.type == "Ping")
    root.stations[0].tap(3)
    let third = try #require(await iterator.next())
    #expect(third.type == "Station.Event", "a nested type is named with its enclosing type")
    _ = anchor
  }
}
