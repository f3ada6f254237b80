@testable import Arbor
import Testing

/// A path target is found through the tree's child tables once anchored, and by visiting
/// the models' values before: both must find the model each path names, wherever the
/// containers (arrays, optionals, dictionaries, identified arrays, enum containers) put it.
@Suite struct IntentTargetTests {
  @Test func everyAnchoredModelIsFoundAtItsOwnPath() throws {
    let forest = Forest(
      branches: [
        Branch(name: "a", leaves: [Leaf(value: 1), Leaf(value: 2)], extra: Leaf(value: 3)),
        Branch(name: "b", leaves: [Leaf(value: 4)]),
      ],
      keyed: ["x/y": Leaf(value: 5), "~z": Leaf(value: 6)],
      identified: [Leaf(value: 7), Leaf(value: 8)]
    ).withAnchor()
    try expectEveryModelFoundAtItsPath(in: forest, count: 11)

    // Reordered, removed and inserted: the paths move with the models.
    forest.branches.swapAt(0, 1)
    forest.branches[1].leaves.insert(Leaf(value: 9), at: 0)
    forest.branches[0].leaves.removeAll()
    forest.keyed["x/y"] = nil
    forest.identified.remove(at: 0)
    try expectEveryModelFoundAtItsPath(in: forest, count: 9)
    let moved = try #require(try forest.model(at: .path("/branches/1/leaves/1")) as? Leaf)
    #expect(moved.value == 1)
    let unescaped = try #require(try forest.model(at: .path("/keyed/~0z")) as? Leaf)
    #expect(unescaped.value == 6)
  }

  @Test func aPathThroughAnEnumContainerOrAGenericContainerIsFound() throws {
    let navigator = Navigator(destination: .pair(Leaf(value: 1), second: Leaf(value: 2)), page: Paginated(items: [Leaf(value: 3)], currentPage: 0))
      .withAnchor()
    try expectEveryModelFoundAtItsPath(in: navigator, count: 4)
    navigator.destination = .detail(Leaf(value: 4))
    try expectEveryModelFoundAtItsPath(in: navigator, count: 3)
  }

  @Test func aModelHeldAtTwoPlacesIsFoundAtBoth() throws {
    let shared = Leaf(value: 42)
    let branch = Branch(name: "r", leaves: [shared, Leaf(value: 1)], extra: shared).withAnchor()
    let first = try #require(try branch.model(at: .path("/leaves/0")) as? Leaf)
    let second = try #require(try branch.model(at: .path("/extra")) as? Leaf)
    #expect(first.id == shared.id && second.id == shared.id)
    #expect(try (branch.model(at: .path("/leaves/1")) as? Leaf)?.value == 1)
  }

  @Test func aPathToNothingFindsNothingAnchoredOrNot() throws {
    let anchored = Branch(name: "r", leaves: [Leaf(value: 1)]).withAnchor()
    let unanchored = Branch(name: "s", leaves: [Leaf(value: 1)])
    for root in [anchored, unanchored] {
      for path in ["/leaves/1", "/leaves/01", "/leaves/-1", "/leaves/x", "/extra", "/name", "/nothing", "/leaves/0/value", "/leaves/0/x"] {
        #expect(try root.model(at: .path(path)) == nil, "\(path) names no model")
      }
      #expect(try (root.model(at: .path("")) as? Branch)?.id == root.id)
      #expect(try (root.model(at: .path("/leaves/0")) as? Leaf)?.value == 1)
    }
    #expect(throws: IntentError.self) { try anchored.model(at: .path("leaves")) }
  }

  @Test func anUnanchoredTreeFindsTheSameModelsAsAnAnchoredOne() throws {
    let tree = Forest(
      branches: [Branch(name: "a", leaves: [Leaf(value: 1)], extra: Leaf(value: 2))],
      keyed: ["k": Leaf(value: 3)],
      identified: [Leaf(value: 4)]
    )
    let paths = ["/branches/0", "/branches/0/leaves/0", "/branches/0/extra", "/keyed/k", "/identified/0"]
    let before = try paths.map { try #require(try tree.model(at: .path($0)))._$anyContext.id }
    let anchored = tree.withAnchor()
    let after = try paths.map { try #require(try anchored.model(at: .path($0)))._$anyContext.id }
    #expect(before == after)
  }

  /// The root keeps the paths it resolved (``PathCache``) while nothing moves: every change
  /// to where models sit must make the next call walk again.
  @Test func aPathResolvedBeforeAStructuralChangeIsResolvedAgainAfterIt() throws {
    let forest = Forest(
      branches: [Branch(name: "a", leaves: [Leaf(value: 1), Leaf(value: 2)], extra: Leaf(value: 3)), Branch(name: "b")],
      keyed: ["k": Leaf(value: 4)]
    ).withAnchor()
    let navigator = Navigator(destination: .detail(Leaf(value: 5))).withAnchor()
    func value(_ root: some Model, _ path: String) throws -> Int? { try (root.model(at: .path(path)) as? Leaf)?.value }

    #expect(try value(forest, "/branches/0/leaves/0") == 1)
    forest.branches[0].leaves[0] = Leaf(value: 10)  // replaced in place
    #expect(try value(forest, "/branches/0/leaves/0") == 10)
    forest.branches[0].leaves.swapAt(0, 1)  // moved
    #expect(try value(forest, "/branches/0/leaves/0") == 2)
    #expect(try value(forest, "/branches/0/leaves/1") == 10)
    forest.branches[0].leaves.append(Leaf(value: 11))
    #expect(try value(forest, "/branches/0/leaves/2") == 11)
    let last = forest.branches[0].leaves.removeLast()
    forest.branches[0].leaves.insert(last, at: 0)  // rotated: the same models, each at another index
    #expect(try value(forest, "/branches/0/leaves/0") == 11)
    #expect(try value(forest, "/branches/0/leaves/2") == 10)
    forest.branches[0].leaves.remove(at: 0)
    forest.branches[0].leaves.remove(at: 0)  // removed
    #expect(try value(forest, "/branches/0/leaves/1") == nil)
    #expect(try value(forest, "/branches/0/leaves/0") == 10)
    #expect(try value(forest, "/branches/0/extra") == 3)
    forest.branches[0].extra = nil  // an optional emptied
    #expect(try value(forest, "/branches/0/extra") == nil)
    forest.branches.swapAt(0, 1)  // a whole subtree moved
    #expect(try value(forest, "/branches/1/leaves/0") == 10)
    #expect(try value(forest, "/branches/0/leaves/0") == nil)
    #expect(try value(forest, "/keyed/k") == 4)
    forest.keyed = ["k": Leaf(value: 40)]  // a dictionary's value replaced
    #expect(try value(forest, "/keyed/k") == 40)
    #expect(try value(navigator, "/destination/detail/_0") == 5)
    navigator.destination = .detail(Leaf(value: 6))  // an enum container's model replaced
    #expect(try value(navigator, "/destination/detail/_0") == 6)
    navigator.destination = .none
    #expect(try value(navigator, "/destination/detail/_0") == nil)

    // A model held at a second place leaves an array: nothing is linked or destructed,
    // yet the models after it move up an index.
    let shared = Leaf(value: 7)
    let branch = Branch(name: "s", leaves: [shared, Leaf(value: 8)], extra: shared).withAnchor()
    #expect(try value(branch, "/leaves/0") == 7)
    #expect(try value(branch, "/leaves/1") == 8)
    branch.leaves.remove(at: 0)
    #expect(try value(branch, "/leaves/0") == 8)
    #expect(try value(branch, "/leaves/1") == nil)
    #expect(try value(branch, "/extra") == 7)

    // A write that moves nothing keeps what was resolved.
    let tree = try #require(forest._$anyContext.tree)
    let before = tree.lock.withLock { tree.structureGeneration }
    try #require(forest.model(at: .path("/keyed/k")) as? Leaf).value += 1
    forest.title = "renamed"
    #expect(tree.lock.withLock { tree.structureGeneration } == before)
    #expect(try value(forest, "/keyed/k") == 41)
  }

  /// Walks the tree by its child tables and checks that each model's own path finds it.
  private func expectEveryModelFoundAtItsPath(in root: some Model, count: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let context = root._$anyContext
    let tree = try #require(context.tree)
    var paths: [(ModelID, String)] = []
    tree.lock.withLock {
      var stack = [context]
      while let current = stack.popLast() {
        for path in current.pathsFromRoot() { paths.append((current.id, path.description)) }
        for entry in current.childTable?.entries ?? [] { stack.append(contentsOf: entry.children) }
      }
    }
    #expect(Set(paths.map(\.0)).count == count, "models in the tree", sourceLocation: sourceLocation)
    for (id, path) in paths {
      let found = try root.model(at: .path(path))
      #expect(found?._$anyContext.id == id, "the model at \(path)", sourceLocation: sourceLocation)
    }
  }
}
