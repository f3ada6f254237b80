import Arbor
import ArborJSON
import ArborTesting
import Foundation
import IssueReporting
import ProcessSlots
import Testing

/// Every committed revision's patch, applied to the previous state, gives exactly the new
/// state: for shared models, long arrays, dictionaries, containers, moves and re-adds.
@Suite struct PatchExactnessTests {
  static var steps: Int {
    ProcessInfo.processInfo.environment["ARBOR_PATCH_STEPS"].flatMap(Int.init) ?? 2_000
  }

  /// Takes the change sets up to `revision` (already committed, so already buffered) and
  /// joins their patches.
  static func patch(through revision: UInt64, from changes: DeadlineIterator<ChangeSet, SubscriptionError>) async throws -> JSONPatch {
    var operations: [JSONPatchOperation] = []
    while true {
      let changeSet = try await changes.next("the change set of revision \(revision)")
      #expect(changeSet.isExact, "revision \(changeSet.revision) is not exact")
      operations += changeSet.patch.operations
      if changeSet.revision >= revision { break }
    }
    return JSONPatch(operations)
  }

  @Test func aSharedModelIsPatchedAtEveryPlace() async throws {
    let leaf = Leaf(value: 1)
    let (forest, anchor) = Forest(branches: [Branch(name: "a", leaves: [leaf]), Branch(name: "b", extra: leaf)]).andAnchor()
    let before = try anchor.state().value
    let changes = DeadlineIterator(anchor.changeSets())
    forest.branches[0].leaves[0].value = 7
    let patch = try await Self.patch(through: anchor.revision, from: changes)
    #expect(patch.operations.map(\.path.description).sorted() == ["/branches/0/leaves/0/value", "/branches/1/extra/value"])
    #expect(try patch.apply(to: before) == anchor.state().value)
  }

  @Test func aLongArrayAssignedAnEditedCopyIsReconciledExactly() async throws {
    let (house, anchor) = Warehouse(long: (0..<300).map { Cell(value: $0) }).andAnchor()
    var previous = try anchor.state().value
    let changes = DeadlineIterator(anchor.changeSets())
    var copy = house.long
    let replacement = Cell(value: -1)
    copy[100] = replacement
    copy.append(Cell(value: 300))
    house.long = copy
    var patch = try await Self.patch(through: anchor.revision, from: changes)
    #expect(patch.operations.count == 3, "remove and add at 100, add at the end: \(patch.operations.map(\.path.description))")
    var next = try anchor.state().value
    #expect(try patch.apply(to: previous) == next)

    previous = next
    house.long[100].value = -2
    patch = try await Self.patch(through: anchor.revision, from: changes)
    next = try anchor.state().value
    #expect(patch.operations.map(\.path.description) == ["/long/100/value"])
    #expect(try patch.apply(to: previous) == next)
    #expect(replacement.value == -2)
  }

  @Test func oneDictionaryEntryIsOneOperation() async throws {
    let (house, anchor) = Warehouse(byKey: ["a": Cell(), "b": Cell(), "c": Cell()]).andAnchor()
    let before = try anchor.state().value
    let changes = DeadlineIterator(anchor.changeSets())
    house.byKey["d"] = Cell(value: 4)
    house.byKey["a"] = nil
    house.page.items.append(Cell(value: 5))
    house.holder = .one(house.byKey["b"]!)
    let patch = try await Self.patch(through: anchor.revision, from: changes)
    #expect(patch.operations.map { "\($0.op) \($0.path)" } == ["add /byKey/d", "remove /byKey/a", "add /page/items/0", "remove /holder/empty", "add /holder/one"])
    #expect(try patch.apply(to: before) == anchor.state().value)
  }

  @Test func aValueThatCannotBeEncodedIsReportedAndMarksItsChangeSet() async throws {
    let (house, anchor) = Warehouse().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets())
    withKnownIssue {
      house.ratio = .nan
    } matching: { issue in
      issue.description.contains("'ratio' of Warehouse") && issue.description.contains("cannot be encoded")
    }
    let changeSet = try await changes.next("the change set of the unencodable write")
    #expect(!changeSet.isExact)
    #expect(changeSet.changes.first?.encodingError != nil)
  }

  /// A long seeded random run over every shape; each revision is checked with this
  /// package's JSON Patch here and with Python's `jsonpatch` at the end. About 35 s of
  /// computing: it runs on a thread of its own, not on the cooperative pool that the other
  /// tests of the parallel run share.
  @Test(.startsProcesses) func randomOperationsOverEveryShapeGiveExactPatches() async throws {
    try await Python.requireModules(["jsonpatch"])
    let seed = UInt64(ProcessInfo.processInfo.environment["ARBOR_PATCH_SEED"].flatMap(Int.init) ?? 8)
    let cases = try await onOwnThread("PatchExactnessTests random run") { () async throws -> PatchCases? in
      var random = SeededRandomNumberGenerator(seed: seed)
      let (house, anchor) = Warehouse(long: (0..<300).map { Cell(value: $0 % 10) }).andAnchor()
      let changes = DeadlineIterator(anchor.changeSets())
      var previous = try anchor.state().value
      var cases = PatchCases()
      for step in 0..<Self.steps {
        let before = anchor.revision
        randomWarehouseStep(house, using: &random)
        let (revision, next) = try anchor.state()
        guard revision != before else { continue }
        let patch = try await Self.patch(through: revision, from: changes)
        let applied = try patch.apply(to: previous)
        guard applied == next else {
          Issue.record("seed \(seed), step \(step), revision \(revision): \(JSONValue.difference(applied, next) ?? "")")
          return nil
        }
        try cases.append(revision: revision, previous: previous, patch: patch, next: next)
        previous = next
      }
      #expect(house.long.count > 256, "the long array stayed long")
      return cases
    }
    guard let cases else { return }
    #expect(cases.count > Self.steps / 2)
    try await cases.expectPythonAgrees()
  }
}
