import Arbor
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

@Model struct Alarm {
  enum Event: Sendable, Codable, Equatable {
    case triggered(level: Int, note: String?)
    case cleared
    case snoozed(Double, by: String)
  }

  var armed = true
  var zones: [String] = []
}

/// The generated schemas, checked by Python's `jsonschema` (Draft 2020-12) against real
/// states, parameters and events, and against values that must be refused.
@Suite(.startsProcesses) struct ModelSchemaValidationTests {
  func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

  func validate(_ document: JSONSchema, _ instances: [Data]) async throws -> [[String]] {
    try await InferredSchemaValidationTests.validate(document: document, instances)
  }

  @Test func realStatesOfManyShapesValidate() async throws {
    var random = SeededRandomNumberGenerator(seed: 99)
    let (forest, forestAnchor) = Forest().andAnchor()
    for _ in 0..<80 { randomForestStep(forest, using: &random) }
    let (_, navigatorAnchor) = Navigator(destination: .pair(Leaf(value: 1), second: Leaf(label: "x"))).andAnchor()
    let (_, detailAnchor) = Navigator(destination: .detail(Leaf())).andAnchor()
    let (_, thermostatAnchor) = Thermostat(schedule: ["07:00": 21]).andAnchor()

    #expect(try await validate(Forest.stateSchema, [json(forestAnchor.state().value)]) == [[]])
    #expect(
      try await validate(Navigator.stateSchema, [json(navigatorAnchor.state().value), json(detailAnchor.state().value)]) == [[], []])
    #expect(try await validate(Thermostat.stateSchema, [json(thermostatAnchor.state().value)]) == [[]])
    #expect(try await validate(Named.stateSchema, [json(Named(id: "n", score: 3).andAnchor().1.state().value)]) == [[]])
    #expect(try await validate(Box<Int>.stateSchema, [json(Box(value: 3).andAnchor().1.state().value)]) == [[]])
  }

  @Test func wrongStatesAreRefused() async throws {
    let (_, anchor) = Forest(branches: [Branch(name: "b", leaves: [Leaf()])]).andAnchor()
    guard case .object(let state) = try anchor.state().value else { Issue.record("not an object"); return }
    var wrongType = state
    wrongType["title"] = 5
    var unknownProperty = state
    unknownProperty["colour"] = "red"
    var missingID = state
    missingID["id"] = nil
    var badID = state
    badID["id"] = "not-an-id"
    var badLeaf = state
    badLeaf["branches"] = [["id": "00000000000000aa", "name": "b", "extra": nil, "leaves": [["id": "00000000000000ab", "value": "one", "label": ""]]]]
    let report = try await validate(Forest.stateSchema, try [wrongType, unknownProperty, missingID, badID, badLeaf].map { try json(JSONValue.object($0)) })
    #expect(report.count == 5)
    for (index, errors) in report.enumerated() { #expect(!errors.isEmpty, "wrong state \(index) was accepted") }
  }

  @Test func realParametersValidateAndWrongOnesAreRefused() async throws {
    var definitions = JSONSchemaDefinitions()
    let schemas = Sensor.intentSchemas(in: &definitions)
    func document(_ name: String) throws -> JSONSchema {
      definitions.document(root: try #require(schemas.first { $0.name == name }).parameters)
    }
    let record: [JSONValue] = [["arg0": ["value": 21.5, "unit": "C"]]]
    let rename: [JSONValue] = [["to": "north"], ["to": "north", "suffix": "-1"], ["to": "x", "suffix": nil]]
    let calibrate: [JSONValue] = [["times": 2], ["times": 1, "offset": 10]]
    #expect(try await validate(document("record"), record.map(json)) == [[]])
    #expect(try await validate(document("rename"), rename.map(json)) == [[], [], []])
    #expect(try await validate(document("calibrate"), calibrate.map(json)) == [[], []])

    let wrong: [JSONValue] = [[:], ["to": 5], ["to": "x", "colour": "red"]]
    let report = try await validate(document("rename"), wrong.map(json))
    #expect(report.allSatisfy { !$0.isEmpty } && report.count == 3)

    let resultDocument = definitions.document(root: try #require(schemas.first { $0.name == "calibrate" }).result)
    #expect(try await validate(resultDocument, [json([1.5, 2])]) == [[]])
  }

  @Test func exportedEventsValidateAndOthersHaveNoSchema() async throws {
    let schema = try #require(Alarm.eventSchema)
    let events: [Alarm.Event] = [.triggered(level: 3, note: nil), .triggered(level: 1, note: "door"), .cleared, .snoozed(5, by: "ann")]
    #expect(try await validate(schema, events.map(json)) == [[], [], [], []])
    let wrong: [JSONValue] = [["triggered": ["level": "high"]], ["exploded": [:]], ["cleared": [:], "snoozed": ["_0": 1, "by": "x"]]]
    let report = try await validate(schema, wrong.map(json))
    #expect(report.allSatisfy { !$0.isEmpty } && report.count == 3)
    #expect(Station.eventSchema == nil, "an event type that is not Codable is not exported")
    #expect(Forest.eventSchema == nil, "a model without events has none")
  }
}
