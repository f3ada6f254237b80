import Arbor
import ArborTesting
import ConcurrencyExtras
import Testing

/// A write that leaves a container of models as it was commits nothing: no revision, no
/// change set, nothing for watchers or the journal. A write that changes it still does.
@Suite struct NoChangeCommitTests {
  static func follow(_ anchor: ModelAnchor<Warehouse>) -> (LockIsolated<[UInt64]>, ChangeSetListener) {
    let revisions = LockIsolated<[UInt64]>([])
    let listener = anchor.listen(limit: .max) { delivery in
      if case .committed(let changeSet) = delivery { revisions.withValue { $0.append(changeSet.revision) } }
    }
    return (revisions, listener)
  }

  @Test func rewritingEachContainerAsItWasCommitsNothing() {
    let (house, anchor) = Warehouse(
      shelves: [Shelf(cells: [Cell(value: 1)])], long: [Cell(), Cell(value: 2)], byKey: ["a": Cell(value: 3)],
      identified: [Cell(value: 4)], holder: .one(Cell(value: 5)), spare: Cell(value: 6)
    ).andAnchor()
    let (revisions, listener) = Self.follow(anchor)
    defer { listener.cancel() }
    let start = anchor.revision

    house.long = house.long
    house.long.removeAll { $0.value == 99 }
    house.shelves[0].cells = house.shelves[0].cells
    house.byKey = house.byKey
    house.identified = house.identified
    house.holder = house.holder
    house.spare = house.spare
    house.node.transaction {
      house.long = house.long
      house.byKey["a"] = house.byKey["a"]
    }
    #expect(anchor.revision == start, "writes that changed nothing committed revisions")
    #expect(revisions.value.isEmpty)

    // The same writes that do change something still commit, one revision each.
    house.long.removeAll { $0.value == 2 }
    house.byKey["b"] = Cell(value: 7)
    house.spare = nil
    house.holder = .empty
    #expect(anchor.revision == start + 4)
    #expect(revisions.value == [start + 1, start + 2, start + 3, start + 4])
  }

  @Test func aSameLookingModelIsStillAnotherModel() {
    let (house, anchor) = Warehouse(byKey: ["a": Cell(value: 1)], spare: Cell(value: 6)).andAnchor()
    let start = anchor.revision
    // Equal values, but a new model: the old one leaves the tree, so this is a change.
    house.spare = Cell(value: 6)
    house.byKey = ["a": Cell(value: 1)]
    #expect(anchor.revision == start + 2)
  }
}
