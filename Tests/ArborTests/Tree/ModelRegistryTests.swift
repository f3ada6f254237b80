import Arbor
import Testing

@Model struct TaggedPart {
  /// A `let` lives in the value only: the tree must keep the value of such a model.
  let tag: String
  let weight: Int
  var count = 0
}

@Model struct PlainPart {
  var count = 0
}

@Model struct Assembly {
  var tagged: [TaggedPart] = []
  var plain: [PlainPart] = []
}

/// The tree keeps its models by id as their contexts, and the values of models with `let`s
/// beside them: every model it gives back by id is the model that was anchored, `let`s
/// included, and a removed model is given back no more.
@Suite struct ModelRegistryTests {
  @Test func modelsFoundByIDKeepTheirLetsAndTheirState() throws {
    let assembly = Assembly(
      tagged: [TaggedPart(tag: "a", weight: 1), TaggedPart(tag: "b", weight: 2)],
      plain: [PlainPart(count: 5), PlainPart(count: 6)]
    ).withAnchor()
    assembly.plain[1].count = 7
    // The hierarchy queries give back the registered values.
    let tags = assembly.node.mapHierarchy(for: .descendants) { ($0 as? TaggedPart).map { "\($0.tag)\($0.weight)" } }
    #expect(tags == ["a1", "b2"])
    let counts = assembly.node.mapHierarchy(for: .descendants) { ($0 as? PlainPart)?.count }
    #expect(counts == [5, 7])
    // The values given back are the live models: a write through one is seen by the other.
    let found = try #require(assembly.node.mapHierarchy(for: .descendants) { $0 as? PlainPart }.first)
    found.count = 50
    #expect(assembly.plain[0].count == 50)
    #expect(found.id == assembly.plain[0].id)

    // A removed model leaves the registry; the others stay.
    assembly.tagged.removeFirst()
    assembly.plain.removeLast()
    #expect(assembly.node.mapHierarchy(for: .descendants) { ($0 as? TaggedPart)?.tag } == ["b"])
    #expect(assembly.node.mapHierarchy(for: .descendants) { ($0 as? PlainPart)?.count } == [50])
  }

  @Test func intentTargetsByIDFindModelsWithAndWithoutLets() async throws {
    let (assembly, anchor) = Assembly(tagged: [TaggedPart(tag: "x", weight: 9)], plain: [PlainPart()]).andAnchor()
    let tagged = assembly.tagged[0]
    let plain = assembly.plain[0]
    let dispatcher = IntentDispatcher(anchor)
    // No intents on these models: the look-up by id is what is tested, through its error.
    for (id, type) in [(tagged.id, "TaggedPart"), (plain.id, "PlainPart")] {
      do {
        _ = try await dispatcher.call("nothing", on: .id(id))
        Issue.record("a call of an intent that does not exist succeeded")
      } catch let error as IntentError {
        #expect(error.description.hasPrefix("\(type) has no intent 'nothing'"), "\(error)")
      }
    }
  }
}
