import Arbor
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

@Suite struct PatchTests {
  static var steps: Int { Int(ProcessInfo.processInfo.environment["ARBOR_PATCH_STEPS"] ?? "") ?? 1_500 }

  func encoded(_ patch: JSONPatch) throws -> JSONValue {
    try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(patch))
  }

  @Test func assignmentsBecomeReplaceAndArrayEditsBecomeIndexedAddAndRemove() async throws {
    let (branch, anchor) = Branch(name: "b", leaves: [Leaf(value: 1), Leaf(value: 2)]).andAnchor()
    let changeSets = DeadlineIterator(anchor.changeSets())
    branch.name = "renamed"
    branch.leaves[1].value = 5
    let inserted = Leaf(value: 9)
    branch.leaves.insert(inserted, at: 0)
    branch.leaves.remove(at: 2)

    var patches: [JSONPatch] = []
    for revision in 1...4 { patches.append(try await changeSets.next("the change set of revision \(revision)").patch) }
    #expect(try encoded(patches[0]) == [["op": "replace", "path": "/name", "value": "renamed"]])
    #expect(try encoded(patches[1]) == [["op": "replace", "path": "/leaves/1/value", "value": 5]])
    #expect(
      try encoded(patches[2]) == [
        ["op": "add", "path": "/leaves/0", "value": ["id": .string(inserted.id.description), "value": 9, "label": ""]]
      ])
    #expect(try encoded(patches[3]) == [["op": "remove", "path": "/leaves/2"]])
  }

  @Test func anInsertedModelIsRecordedAsItWasWhenInserted() async throws {
    let (branch, anchor) = Branch(name: "b").andAnchor()
    let before = try anchor.state().value
    let changeSets = DeadlineIterator(anchor.changeSets())
    branch.node.transaction {
      let leaf = Leaf(value: 1)
      branch.leaves.append(leaf)
      leaf.value = 2
    }
    let patch = try await changeSets.next("the change set of the transaction").patch
    #expect(patch.operations.count == 2)
    guard case .add(_, let value) = patch.operations[0] else { Issue.record("not an add"); return }
    #expect(value.objectValue?["value"] == 1, "the insert carries the value at insertion, the later write follows it")
    #expect(try patch.apply(to: before) == anchor.state().value)
  }

  @Test func keysWithSlashesAndTildesAreEscaped() async throws {
    let (forest, anchor) = Forest().andAnchor()
    let changeSets = DeadlineIterator(anchor.changeSets())
    forest.keyed["a/b~c"] = Leaf()
    forest.keyed["a/b~c"]?.value = 3
    _ = try await changeSets.next("the change set of the insertion")
    let patch = try await changeSets.next("the change set of the write").patch
    #expect(patch.operations.first?.path.description == "/keyed/a~1b~0c/value")
  }

  /// A change set's patch as JSON text is the patch's own encoding, written once: the
  /// journal and the watchers of a daemon share it.
  @Test func aChangeSetsPatchTextIsItsPatchEncodedOnce() async throws {
    let (forest, anchor) = Forest().andAnchor()
    let changeSets = DeadlineIterator(anchor.changeSets())
    forest.keyed["a/b~c"] = Leaf()
    let changeSet = try await changeSets.next("the change set of the insertion")
    let text = changeSet.patchJSON
    #expect(text == changeSet.patch.jsonBytes)
    #expect(try JSONValueDecoder().decode(JSONPatch.self, from: JSONValue(parsing: text)) == changeSet.patch, "the text reads back as the patch")
    #expect(changeSet.patchJSON == text, "asked again, the same bytes")
  }

  /// Every change set of a long random run, applied to the state of the previous revision
  /// by this package's JSON Patch and by Python's `jsonpatch`, gives the next state. About
  /// 30 s of computing: it runs on a thread of its own, not on the cooperative pool that the
  /// other tests of the parallel run share.
  @Test(.startsProcesses) func patchesAgreeWithAnIndependentImplementation() async throws {
    try await Python.requireModules(["jsonpatch"])
    let cases = try await onOwnThread("PatchTests random run") { () async throws -> PatchCases in
      var random = SeededRandomNumberGenerator(seed: 2026)
      let (forest, anchor) = Forest().andAnchor()
      let changeSets = DeadlineIterator(anchor.changeSets())
      var previous = try anchor.state().value
      var cases = PatchCases()
      for _ in 0..<Self.steps {
        let before = anchor.revision
        randomForestStep(forest, using: &random)
        let (revision, next) = try anchor.state()
        guard revision != before else { continue }
        var patch = JSONPatch([])
        for expected in (before + 1)...revision {
          let changeSet = try await changeSets.next("the change set of revision \(expected)")
          #expect(changeSet.revision == expected, "revisions have no gap")
          patch = JSONPatch(patch.operations + changeSet.patch.operations)
        }
        let applied = try patch.apply(to: previous)
        #expect(applied == next, "revision \(revision): \(JSONValue.difference(applied, next) ?? "")")
        try cases.append(revision: revision, previous: previous, patch: patch, next: next)
        previous = next
      }
      return cases
    }
    #expect(cases.count > Self.steps / 2)
    try await cases.expectPythonAgrees()
  }
}
