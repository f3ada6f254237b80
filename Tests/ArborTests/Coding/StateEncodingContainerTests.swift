import Arbor
import ArborJSON
import Foundation
import IdentifiedCollections
import Testing

/// A model's state writes the same through keyed containers (Foundation's `JSONEncoder`)
/// and into objects directly (`JSONValueEncoder`): the same JSON, the same errors.
@Suite struct StateEncodingContainerTests {
  func throughKeyedContainers(_ value: some Encodable) throws -> JSONValue {
    let encoder = JSONEncoder()
    encoder.outputFormatting = .sortedKeys
    return try JSONValue(parsing: encoder.encode(value))
  }

  @Test func aTreeWritesTheSameJSONBothWays() throws {
    let shared = Leaf(value: 7, label: "shared")
    let forest = Forest(
      branches: [Branch(name: "a", leaves: [shared, Leaf(value: 1)], extra: shared), Branch(name: "b")],
      keyed: ["k": Leaf(value: 2, label: "keyed")],
      identified: [Leaf(value: 3)],
      title: "woods")
    let direct = try JSONValueEncoder().encode(forest)
    #expect(direct == (try throughKeyedContainers(forest)))
    // What was written: ids as text, nil as null, every member by name.
    #expect(try JSONPointer("/id").resolve(in: direct) == .string(forest.id.description))
    #expect(try JSONPointer("/branches/1/extra").resolve(in: direct) == .null)
    #expect(try JSONPointer("/branches/0/extra/label").resolve(in: direct) == "shared")
    #expect(try JSONPointer("/keyed/k/value").resolve(in: direct) == 2)
    #expect(try JSONPointer("/identified/0/value").resolve(in: direct) == 3)
  }

  @Test func aValueJSONCannotHoldFailsAtTheSamePathBothWays() throws {
    let thermostat = Thermostat()
    thermostat.target = .infinity
    var paths: [String] = []
    for encode in [{ _ = try JSONValueEncoder().encode(thermostat) }, { _ = try self.throughKeyedContainers(thermostat) }] {
      do {
        try encode()
        Issue.record("encoded an infinite target")
      } catch EncodingError.invalidValue(_, let context) {
        paths.append(JSONPointer(tokens: context.codingPath.map(\.stringValue)).description)
      }
    }
    #expect(paths == ["/target", "/target"])
  }
}
