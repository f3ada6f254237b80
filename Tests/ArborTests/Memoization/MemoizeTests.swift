import Arbor
import ArborTesting
import ConcurrencyExtras
import Testing

@Model struct Catalog {
  var items: [Int] = []
  var name = " Shelf "
  var unrelated = 0
  @ModelIgnored var computations: Tally? = nil

  var total: Int {
    node.memoize(for: "total") {
      computations?.add()
      return items.reduce(0, +)
    }
  }

  var normalized: String {
    node.memoize(for: "normalized") {
      computations?.add()
      return name.lowercased().trimmingCharacters(in: .whitespaces)
    }
  }

  var doubled: [Int] {
    node.memoize(for: "doubled") { items.map { $0 * 2 } }
  }
}

/// `node.memoize`: computed once, again only after something it read changed, observable,
/// and for Equatable values waking observers only when the result changes.
@Suite struct MemoizeTests {
  @Test func aMemoizedValueIsComputedOnceUntilSomethingItReadChanges() {
    let tally = Tally()
    let catalog = Catalog(items: [1, 2], computations: tally).withAnchor()
    #expect(catalog.total == 3)
    #expect(catalog.total == 3)
    #expect(tally.value == 1, "cached")
    catalog.unrelated = 5
    #expect(catalog.total == 3)
    #expect(tally.value == 1, "a write it did not read leaves it cached")
    catalog.items.append(4)
    #expect(catalog.total == 7)
    #expect(tally.value == 2, "recomputed once after what it read changed")
    #expect(catalog.total == 7)
    #expect(tally.value == 2)
  }

  @Test func anObservedOfAMemoizedValueWakesWhenItChanges() async throws {
    let catalog = Catalog(items: [1]).withAnchor()
    let values = DeadlineIterator(Observed { catalog.doubled })
    #expect(try await values.next("the first value") == [2])
    catalog.items = [1, 5]
    #expect(try await values.next("the value after the items changed") == [2, 10])
  }

  @Test func anEquatableMemoizedValueWakesObserversOnlyWhenTheResultDiffers() async throws {
    let tally = Tally()
    let catalog = Catalog(name: " Shelf ", computations: tally).withAnchor()
    let evaluations = Tally()
    let values = DeadlineIterator(
      Observed {
        evaluations.add()
        return catalog.normalized
      })
    #expect(try await values.next("the first value") == "shelf")
    let before = evaluations.value
    // Same result: recomputed, observers not woken.
    catalog.name = "SHELF"
    #expect(tally.value == 2, "recomputed at once, because it is observed")
    catalog.name = "Box"
    #expect(try await values.next("the value after the name changed") == "box")
    #expect(evaluations.value == before + 1, "the equal result woke nobody: \(evaluations.value - before) evaluations")
  }

  @Test func memoizedValuesWorkFromManyTasksAtOnce() async throws {
    let catalog = Catalog(items: Array(0..<10)).withAnchor()
    let steps = Tally()
    try await withProgressDeadline("4 tasks of 200 steps", progress: { steps.value }) {
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<4 {
          group.addTask {
            for step in 0..<200 {
              if step % 10 == 0 { catalog.items.append(writer) }
              _ = catalog.total
              _ = catalog.doubled
              steps.add()
            }
          }
        }
      }
    }
    #expect(catalog.total == catalog.items.reduce(0, +))
    #expect(catalog.doubled == catalog.items.map { $0 * 2 })
  }

  @Test func aRemovedModelLetsGoOfItsMemoizedValues() async throws {
    weak var weakContext: AnyObject?
    let holder = Branch(name: "holder").withAnchor()
    do {
      let leaf = Leaf(value: 3)
      holder.extra = leaf
      _ = leaf.node.memoize(for: "twice") { leaf.value * 2 }
      weakContext = leaf._$modelContext
    }
    holder.extra = nil
    // Deactivation runs after the commit; poll for the context, within a deadline.
    let deadline = ContinuousClock.now + .seconds(Deadline.defaultSeconds)
    while weakContext != nil && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
    #expect(weakContext == nil, "the removed leaf's context was freed")
  }
}
