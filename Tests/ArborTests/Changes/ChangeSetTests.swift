import Arbor
import ArborTesting
import IssueReporting
import Testing

/// The next `count` change sets of `changeSets`, read in one task whose deadline is about
/// the change sets: it fails once none has come for 20 s (not after 20 s in all, nor with
/// one wait per change set, each of which would wait for a turn on the pool).
func collect(
  _ changeSets: ChangeSets, count: Int,
  fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
) async throws -> [ChangeSet] {
  let collected = Tally()
  let first = changeSets.startRevision + 1
  return try await withProgressDeadline(
    "\(count) change sets from revision \(first)", progress: { collected.value },
    fileID: fileID, filePath: filePath, line: line, column: column
  ) {
    var iterator = changeSets.makeAsyncIterator()
    var result: [ChangeSet] = []
    while result.count < count {
      guard let changeSet = try await iterator.next() else {
        let error = SequenceEnded(what: "the change set of revision \(first + UInt64(result.count))")
        reportIssue(error.description, fileID: fileID, filePath: filePath, line: line, column: column)
        throw error
      }
      result.append(changeSet)
      collected.add()
    }
    return result
  }
}

@Suite struct ChangeSetTests {
  @Test func everyCommitThatChangedStateBumpsTheRevisionOnce() {
    let (leaf, anchor) = Leaf().andAnchor()
    #expect(anchor.revision == 0)
    leaf.value = 1
    #expect(anchor.revision == 1)
    leaf.value = 1
    #expect(anchor.revision == 1, "writing the current value of an Equatable property is a no-op")
    leaf.node.transaction {
      leaf.value = 2
      leaf.label = "x"
    }
    #expect(anchor.revision == 2)
    leaf.node.transaction {}
    #expect(anchor.revision == 2, "a transaction that changed nothing does not commit a revision")
    leaf.node.touch(\.value)
    #expect(anchor.revision == 2, "a touch wakes observers but changes no state")
  }

  @Test func changeSetsNameModelPropertyAndValueInCommitOrder() async throws {
    let (branch, anchor) = Branch(name: "r").andAnchor()
    let changes = anchor.changeSets()
    #expect(changes.startRevision == 0)
    branch.leaves.append(Leaf(value: 1))
    let leaf = branch.leaves[0]
    branch.node.transaction {
      leaf.value = 2
      branch.name = "renamed"
    }
    branch.leaves.removeLast()
    let sets = try await collect(changes, count: 3)
    #expect(sets.map(\.revision) == [1, 2, 3])

    let insert = try #require(sets[0].changes.first)
    #expect(insert.valuePath.description == "/leaves/0")
    guard case .insert(0, let inserted) = insert.operation else { Issue.record("not an insert"); return }
    #expect((inserted as? Leaf)?.id == leaf.id)

    #expect(sets[1].changes.map(\.valuePath.description) == ["/leaves/0/value", "/name"])
    #expect(sets[1].changes[0].modelID == leaf._$modelContext.id)
    #expect(sets[1].changes[0].modelType == "Leaf")
    guard case .set(let value) = sets[1].changes[0].operation else { Issue.record("not a set"); return }
    #expect(value as? Int == 2)

    guard case .remove(0) = sets[2].changes[0].operation else { Issue.record("not a removal"); return }
  }

  @Test func pathsAreTakenWhenTheChangeIsMade() async throws {
    let (branch, anchor) = Branch(name: "r", leaves: [Leaf(label: "a"), Leaf(label: "b")]).andAnchor()
    let changes = anchor.changeSets()
    let b = branch.leaves[1]
    branch.node.transaction {
      b.value = 1
      branch.leaves.remove(at: 0)
      b.value = 2
    }
    let set = try await collect(changes, count: 1)[0]
    #expect(set.changes.map(\.valuePath.description) == ["/leaves/1/value", "/leaves/0", "/leaves/0/value"])
  }

  @Test func replacingTheMiddleOfAnArrayRecordsRemovalsThenInsertions() async throws {
    let (branch, anchor) = Branch(name: "r", leaves: (0..<5).map { Leaf(value: $0) }).andAnchor()
    let changes = anchor.changeSets()
    var leaves = branch.leaves
    leaves.replaceSubrange(1..<3, with: [Leaf(value: 10)])
    branch.leaves = leaves
    let set = try await collect(changes, count: 1)[0]
    let operations = set.changes.map { change -> String in
      switch change.operation {
      case .insert(let index, _): return "+\(index)"
      case .remove(let index): return "-\(index)"
      case .set: return "="
      }
    }
    #expect(operations == ["-2", "-1", "+1"])
    #expect(branch.leaves.map(\.value) == [0, 10, 3, 4])
    #expect(branch.leaves[2].node.path?.description == "/leaves/2")
  }

  @Test func anInPlaceEditThatReplacesAndAppendsIsReconciledExactly() async {
    let (branch, anchor) = Branch(name: "r", leaves: (0..<5).map { Leaf(value: $0) }).andAnchor()
    // Index 1 is none of the positions a long array would sample (first, middle, last).
    let replaced = branch.leaves[1]
    let newcomer = Leaf(value: 20)
    func edit(_ leaves: inout [Leaf]) {
      leaves[1] = newcomer
      leaves.append(Leaf(value: 30))
    }
    edit(&branch.leaves)
    #expect(replaced.lifetime == .destructed)
    #expect(newcomer.lifetime == .anchored)
    #expect(newcomer.node.path?.description == "/leaves/1")
    #expect(branch.leaves[5].lifetime == .anchored)
    _ = anchor
  }

  @Test func concurrentWritersProduceGaplessRevisions() async throws {
    let (branch, anchor) = Branch(name: "r", leaves: (0..<8).map { Leaf(value: $0) }).andAnchor()
    let changes = anchor.changeSets()
    let writesPerTask = 200
    try await withProgressDeadline("8 tasks to write 200 times each", progress: { Int(anchor.revision) }) {
      await withTaskGroup(of: Void.self) { group in
        for leaf in branch.leaves {
          group.addTask {
            for _ in 0..<writesPerTask { leaf.value += 1 }
          }
        }
      }
    }
    let total = 8 * writesPerTask
    #expect(anchor.revision == UInt64(total))
    let sets = try await collect(changes, count: total)
    #expect(sets.map(\.revision) == Array(1...UInt64(total)))
  }

  @Test func modelsBeforeAnchoringHaveNoChangeSets() {
    let leaf = Leaf()
    #expect(leaf.node.changeSets() == nil)
    #expect(leaf.node.revision == nil)
  }
}
