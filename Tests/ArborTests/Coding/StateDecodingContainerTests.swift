import Arbor
import ArborJSON
import Foundation
import Testing

/// A model's state reads the same through keyed containers (Foundation's `JSONDecoder`)
/// and from parsed objects (`JSONValueDecoder`, whose objects a model reads directly): the
/// same models, the same defaults, the same errors at the same paths.
@Suite struct StateDecodingContainerTests {
  /// The two ways a model's state is read.
  enum Decoder: CaseIterable, CustomStringConvertible {
    case keyedContainers, parsedObjects
    var description: String { self == .keyedContainers ? "through keyed containers" : "from parsed objects" }
  }

  /// What a decoding error says, in a form both decoders can be compared by.
  struct Failure: Equatable, CustomStringConvertible {
    var kind: String
    var path: String
    var detail: String
    var description: String { "\(kind) at \(path): \(detail)" }

    init(_ error: DecodingError) {
      let context: DecodingError.Context
      switch error {
      case .typeMismatch(let type, let found): (kind, context) = ("type mismatch \(type)", found)
      case .valueNotFound(let type, let found): (kind, context) = ("value not found \(type)", found)
      case .keyNotFound(let key, let found): (kind, context) = ("key not found \(key.stringValue)", found)
      case .dataCorrupted(let found): (kind, context) = ("data corrupted", found)
      @unknown default: fatalError("\(error)")
      }
      path = JSONPointer(tokens: context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }).description
      // A missing key's sentence prints the key's Swift type (`_StateCodingKey(stringValue:
      // "id", …)` from Foundation): the key's name, in `kind`, is what a user is shown.
      if case .keyNotFound = error { detail = "" } else { detail = context.debugDescription }
    }
  }

  /// The state of a record's text, decoded as an `M` with shared models decoded once, as a
  /// restore decodes it.
  func decode<M: Model>(_ type: M.Type, state: JSONValue, _ decoder: Decoder) throws -> M {
    switch decoder {
    case .keyedContainers:
      let foundation = JSONDecoder()
      foundation.userInfo[.arborDecodedModels] = DecodedModels()
      return try foundation.decode(M.self, from: JSONEncoder().encode(state))
    case .parsedObjects:
      var decoder = JSONValueDecoder()
      decoder.userInfo[.arborDecodedModels] = DecodedModels()
      return try decoder.decode(M.self, from: state)
    }
  }

  func decodingFailure<M: Model>(_ type: M.Type, state: JSONValue, _ decoder: Decoder) -> Failure? {
    do {
      _ = try decode(M.self, state: state, decoder)
      Issue.record("decoded \(state) \(decoder)")
      return nil
    } catch let error as DecodingError {
      return Failure(error)
    } catch {
      Issue.record("not a DecodingError: \(error)")
      return nil
    }
  }

  func thermostatState() throws -> JSONValue {
    let (model, anchor) = Thermostat().andAnchor()
    model.history = [1, 2]
    return try anchor.state().value
  }

  func forestState(sharing leaf: Leaf) throws -> JSONValue {
    let (_, anchor) = Forest(branches: [Branch(name: "a", leaves: [leaf]), Branch(name: "b", leaves: [leaf])]).andAnchor()
    return try anchor.state().value
  }

  func changing(_ state: JSONValue, _ operations: JSONPatchOperation...) throws -> JSONValue {
    try JSONPatch(operations).apply(to: state)
  }

  @Test(arguments: Decoder.allCases) func aModelReadsBackTheSame(_ decoder: Decoder) throws {
    let restored = try decode(Thermostat.self, state: try thermostatState(), decoder)
    #expect(restored.name == "hall" && restored.target == 20.5 && restored.history == [1, 2])
  }

  @Test(arguments: Decoder.allCases) func aMissingPropertyTakesItsDefault(_ decoder: Decoder) throws {
    let state = try changing(thermostatState(), .remove(JSONPointer("/target")), .replace(JSONPointer("/name"), "attic"))
    let restored = try decode(Thermostat.self, state: state, decoder)
    #expect(restored.target == 20.5 && restored.name == "attic" && restored.history == [1, 2])
  }

  @Test(arguments: Decoder.allCases) func aSharedModelIsOneModel(_ decoder: Decoder) throws {
    let leaf = Leaf(value: 3)
    let restored = try decode(Forest.self, state: try forestState(sharing: leaf), decoder)
    let (first, second) = (restored.branches[0].leaves[0], restored.branches[1].leaves[0])
    #expect(first.id == leaf.id && second.id == leaf.id)
    first.value = 4
    #expect(second.value == 4, "both places hold one model")
  }

  @Test(arguments: Decoder.allCases) func oneIDForTwoTypesIsRefused(_ decoder: Decoder) throws {
    var state = try forestState(sharing: Leaf(value: 3))
    let branchID = try JSONPointer("/branches/0/id").resolve(in: state)
    // The second branch's leaf takes the first branch's id.
    state = try changing(state, .replace(JSONPointer("/branches/1/leaves/0/id"), branchID))
    let failure = try #require(decodingFailure(Forest.self, state: state, decoder))
    #expect(failure.kind == "data corrupted" && failure.path == "/branches/1/leaves/0/id")
    #expect(failure.detail == "model id \(branchID.stringValue ?? "") is used by both a Branch and a Leaf")
  }

  /// Each broken state, and where its error is.
  static let brokenStates: [(what: String, change: JSONPatchOperation, path: String)] = [
    ("a missing id", .remove(try! JSONPointer("/id")), ""),
    ("a malformed id", .replace(try! JSONPointer("/id"), "xyz"), "/id"),
    ("an id that is not text", .replace(try! JSONPointer("/id"), 7), "/id"),
    ("an id that is null", .replace(try! JSONPointer("/id"), nil), "/id"),
    ("an element of the wrong type", .replace(try! JSONPointer("/history/1"), "two"), "/history/1"),
    ("null where a value must be", .replace(try! JSONPointer("/history"), nil), "/history"),
    ("text where a number must be", .replace(try! JSONPointer("/target"), "warm"), "/target"),
    ("a state that is not an object", .replace(JSONPointer.root, [1, 2]), ""),
  ]

  @Test(arguments: 0..<brokenStates.count) func aBrokenStateGivesTheSameErrorBothWays(_ index: Int) throws {
    let broken = Self.brokenStates[index]
    let state = try changing(thermostatState(), broken.change)
    let keyed = try #require(decodingFailure(Thermostat.self, state: state, .keyedContainers))
    let parsed = try #require(decodingFailure(Thermostat.self, state: state, .parsedObjects))
    #expect(keyed == parsed, "\(broken.what)")
    #expect(parsed.path == broken.path, "\(broken.what): \(parsed)")
  }

  @Test(arguments: Decoder.allCases) func aMissingRequiredPropertyIsNamed(_ decoder: Decoder) throws {
    let (_, anchor) = Branch(name: "b").andAnchor()
    let state = try changing(anchor.state().value, .remove(JSONPointer("/name")))
    let failure = try #require(decodingFailure(Branch.self, state: state, decoder))
    #expect(failure.kind == "key not found name" && failure.path == "")
  }
}
