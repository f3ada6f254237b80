import Arbor
import ArborTesting
import Testing

extension EnvironmentKeys {
  var modificationsLevel: EnvironmentStorage<Int> { .init(defaultValue: 0) }
}

extension PreferenceKeys {
  var modificationsTotal: PreferenceStorage<Int> { .init(defaultValue: 0) { $0 += $1 } }
}

extension LocalKeys {
  var modificationsScratch: LocalStorage<Int> { .init(defaultValue: 0) }
}

/// A document whose scroll position and zoom are volatile: they do not count as edits.
@Model struct Canvas {
  var title = ""
  var scrollPosition = 0
  var zoom = 1
  var panes: [Pane] = []

  func onActivate() {
    node.excludeFromModifications(\.scrollPosition, \.zoom)
  }
}

@Model struct Pane {
  var scrollPosition = 0
}

/// Checks, after a write, which of several modification streams emitted for it.
///
/// Modification taps run before a write returns, so by then a stream made before the write
/// holds its emission, if any. Each stream is probed once, without waiting: iterated in a
/// cancelled task, an `AsyncStream` hands over what it buffered, then ends.
private struct Probes {
  private var probes: [(name: String, probe: @Sendable () async -> Bool)] = []

  mutating func add(_ name: String, _ sequence: some AsyncSequence<Void, Never> & Sendable) {
    probes.append(
      (name, {
        withUnsafeCurrentTask { $0?.cancel() }
        for await _ in sequence { return true }
        return false
      }))
  }

  /// The names of the streams that emitted; consumes them.
  func emitted() async throws -> Set<String> {
    var names: Set<String> = []
    for (name, probe) in probes where try await withDeadline("the probe of \(name)", probe) {
      names.insert(name)
    }
    return names
  }
}

/// `observeModifications(scope:kinds:where:)` and `node.excludeFromModifications`: what
/// each scope, kind and type predicate selects, one emission per transaction, exclusions
/// (also for `observeAnyModification()`), and writers on several tasks.
@Suite struct ObserveModificationsTests {
  /// The streams `observers` makes, made anew before `write`, that emitted for it.
  private func emissions(_ observers: () -> Probes, after write: () -> Void) async throws -> Set<String> {
    let probes = observers()
    write()
    return try await probes.emitted()
  }

  @Test func eachScopeSelectsItsModels() async throws {
    let forest = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 1)])]).withAnchor()
    let branch = forest.branches[0]
    let leaf = branch.leaves[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("self", forest.observeModifications(scope: .self))
      probes.add("children", forest.observeModifications(scope: .children))
      probes.add("descendants", forest.observeModifications(scope: .descendants))
      probes.add("default", forest.observeModifications())
      probes.add("self+children", forest.observeModifications(scope: [.self, .children]))
      probes.add("branch", branch.observeModifications(scope: .self))
      return probes
    }
    #expect(try await emissions(observers) { forest.title = "t" } == ["self", "default", "self+children"])
    #expect(
      try await emissions(observers) { branch.name = "b" } == ["children", "descendants", "default", "self+children", "branch"])
    #expect(try await emissions(observers) { leaf.value = 2 } == ["descendants", "default"])
    let elsewhere = Branch(name: "elsewhere").withAnchor()
    #expect(try await emissions(observers) { elsewhere.name = "other tree" } == [])
  }

  @Test func eachKindSelectsItsModifications() async throws {
    let forest = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 1)])]).withAnchor()
    let branch = forest.branches[0]
    let leaf = branch.leaves[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("properties", forest.observeModifications(kinds: .properties))
      probes.add("environment", forest.observeModifications(kinds: .environment))
      probes.add("preferences", forest.observeModifications(kinds: .preferences))
      probes.add("parents", forest.observeModifications(kinds: .parentRelationship))
      probes.add("all", forest.observeModifications())
      probes.add("shared values", forest.observeModifications(kinds: [.environment, .preferences]))
      return probes
    }
    #expect(try await emissions(observers) { leaf.value = 3 } == ["properties", "all"])
    #expect(
      try await emissions(observers) { leaf.node.environment.modificationsLevel = 1 } == ["environment", "all", "shared values"])
    #expect(
      try await emissions(observers) { branch.node.preference.modificationsTotal = 2 } == ["preferences", "all", "shared values"])
    #expect(try await emissions(observers) { leaf.node.local.modificationsScratch = 1 } == [], "local storage is no kind")
    #expect(try await emissions(observers) { branch.leaves.append(Leaf(value: 2)) } == ["properties", "parents", "all"])
    #expect(try await emissions(observers) { branch.leaves.removeLast() } == ["properties", "parents", "all"])
    #expect(try await emissions(observers) { branch.node.removePreference(\.modificationsTotal) } == ["preferences", "all", "shared values"])
    #expect(forest.node.preference.modificationsTotal == 0)
  }

  @Test func sharedValuesBelongToTheModelThatWroteThem() async throws {
    let branch = Branch(name: "root", leaves: [Leaf(value: 1)]).withAnchor()
    let leaf = branch.leaves[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("leaf", leaf.observeModifications(scope: .self))
      probes.add("root", branch.observeModifications(scope: .self))
      return probes
    }
    // The leaf inherits the value, but it was not modified.
    #expect(try await emissions(observers) { branch.node.environment.modificationsLevel = 5 } == ["root"])
    #expect(leaf.node.environment.modificationsLevel == 5)
    #expect(try await emissions(observers) { leaf.node.environment.modificationsLevel = 6 } == ["leaf"])
    #expect(try await emissions(observers) { leaf.node.preference.modificationsTotal = 1 } == ["leaf"])
  }

  @Test func parentRelationshipFollowsModelsJoiningLeavingAndBeingShared() async throws {
    let forest = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 0), Leaf(value: 1)])]).withAnchor()
    let branch = forest.branches[0]
    let first = branch.leaves[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("root", forest.observeModifications(kinds: .parentRelationship))
      probes.add("first", first.observeModifications(scope: .self, kinds: .parentRelationship))
      probes.add("branch children", branch.observeModifications(scope: .children, kinds: .parentRelationship))
      probes.add("branch itself", branch.observeModifications(scope: .self, kinds: .parentRelationship))
      return probes
    }
    #expect(try await emissions(observers) { branch.leaves.swapAt(0, 1) } == [], "a move is not a parent change")
    #expect(branch.leaves[1].value == 0)
    #expect(try await emissions(observers) { branch.extra = first } == ["root", "first", "branch children"])
    #expect(try await emissions(observers) { branch.extra = nil } == ["root", "first", "branch children"])
    // Rewriting a property with the models it holds changes no parent.
    #expect(try await emissions(observers) { branch.leaves = branch.leaves } == [])
    // The removed leaf is gone from the tree: its former parent places it.
    #expect(try await emissions(observers) { branch.leaves.remove(at: 1) } == ["root", "branch children"])
    #expect(first.lifetime == .destructed)
    #expect(try await emissions(observers) { forest.branches.append(Branch(name: "b")) } == ["root"])
  }

  @Test func aModelLosesAParentWhenAnotherParentOfItIsRemoved() async throws {
    let shared = Leaf(value: 7)
    let forest = Forest(branches: [Branch(name: "a", leaves: [shared]), Branch(name: "b", extra: shared)]).withAnchor()
    let kept = forest.branches[1]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("shared", shared.observeModifications(scope: .self, kinds: .parentRelationship))
      probes.add("kept branch", kept.observeModifications(scope: .children, kinds: .parentRelationship))
      probes.add("kept branch properties", kept.observeModifications(kinds: .properties))
      return probes
    }
    #expect(try await emissions(observers) { forest.branches.removeFirst() } == ["shared", "kept branch"])
    #expect(shared.lifetime == .anchored)
    #expect(shared.node.isUniquelyReferenced)
  }

  @Test func wherePredicateSelectsByTheModifiedModelsType() async throws {
    let forest = Forest(branches: [Branch(name: "a", leaves: [Leaf(value: 1)])]).withAnchor()
    let branch = forest.branches[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("leaves", forest.observeModifications(where: { $0 == Leaf.self }))
      probes.add("branches", forest.observeModifications(where: { $0 == Branch.self }))
      probes.add("branch parents", forest.observeModifications(kinds: .parentRelationship, where: { $0 is Branch.Type }))
      return probes
    }
    #expect(try await emissions(observers) { branch.name = "renamed" } == ["branches"])
    #expect(try await emissions(observers) { branch.leaves[0].value = 2 } == ["leaves"])
    #expect(try await emissions(observers) { forest.title = "forest type: neither" } == [])
    // The forest's property changed (a Forest) and a branch gained a parent (a Branch).
    #expect(try await emissions(observers) { forest.branches.append(Branch(name: "b")) } == ["branches", "branch parents"])
    // Its leaf gained a parent too.
    #expect(
      try await emissions(observers) { forest.branches.append(Branch(name: "c", leaves: [Leaf()])) }
        == ["branches", "branch parents", "leaves"])
    #expect(try await emissions(observers) { branch.leaves.append(Leaf()) } == ["branches", "leaves"])
  }

  @Test func aTransactionIsOneEmission() async throws {
    let root = Branch(name: "root", leaves: [Leaf(value: 0)]).withAnchor()
    let count = Tally()
    let modifications = root.observeModifications()
    let consumer = Task {
      for await _ in modifications { count.add() }
    }
    root.name = "first"
    await expectEventually("the first write's emission") { count.value == 1 }
    root.node.transaction {
      for step in 1...50 {
        root.leaves[0].value = step
        root.name = "step \(step)"
      }
      root.node.environment.modificationsLevel = 1
      root.leaves.append(Leaf(value: 99))
    }
    await expectEventually("the transaction's emission") { count.value >= 2 }
    root.name = "marker"
    await expectEventually("the marker's emission") { count.value >= 3 }
    #expect(count.value == 3, "the first write, the transaction, the marker")
    consumer.cancel()
    try await withDeadline("the consumer to end once cancelled") { await consumer.value }
  }

  @Test func excludedPropertiesTriggerNeitherObservation() async throws {
    let canvas = Canvas(panes: [Pane()]).withAnchor()
    let pane = canvas.panes[0]
    func observers() -> Probes {
      var probes = Probes()
      probes.add("modifications", canvas.observeModifications())
      probes.add("any", canvas.observeAnyModification())
      probes.add("pane", pane.observeModifications(scope: .self))
      return probes
    }
    #expect(try await emissions(observers) { canvas.scrollPosition = 10 } == [])
    #expect(try await emissions(observers) { canvas.zoom = 2 } == [])
    #expect(try await emissions(observers) { canvas.title = "t" } == ["modifications", "any"])
    #expect(
      try await emissions(observers) {
        canvas.node.transaction {
          canvas.scrollPosition = 11
          canvas.title = "u"
        }
      } == ["modifications", "any"])
    // The exclusion is the canvas's: a pane's property of the same name still counts.
    #expect(try await emissions(observers) { pane.scrollPosition = 5 } == ["modifications", "any", "pane"])
    // Observers of the property itself still see it.
    let position = DeadlineIterator(Observed { canvas.scrollPosition })
    #expect(try await position.next("the current position") == 11)
    canvas.scrollPosition = 12
    #expect(try await position.next("the excluded property's change") == 12)
  }

  @Test func aModelThatIsNotAnchoredEndsAtOnce() async throws {
    let free = Leaf(value: 1)
    let modifications = DeadlineIterator(free.observeModifications())
    #expect(try await modifications.nextOrEnd("the end of the stream") == nil)
  }

  @Test func writersOnSeveralTasks() async throws {
    let quiet = Leaf(value: -1)
    let forest = Forest(
      branches: (0..<4).map { Branch(name: "b\($0)", leaves: [Leaf(value: 0)]) } + [Branch(name: "quiet", leaves: [quiet])]
    ).withAnchor()
    let branches = Array(forest.branches.prefix(4))
    let quietProperties = quiet.observeModifications(scope: .self, kinds: .properties)
    let quietBranch = forest.branches[4].observeModifications(kinds: [.properties, .environment, .preferences])
    let count = Tally()
    let consumer = Task {
      for await _ in forest.observeModifications() { count.add() }
    }
    // The deadline is about the writers' steps, not the clock: on a loaded machine the
    // writers may wait for a thread of the pool, and they are late, not stuck.
    let steps = Tally()
    let writersDone = Tally()
    let churned = Tally()
    try await withProgressDeadline("the writers (600 steps)", progress: { steps.value }) {
      await withTaskGroup(of: Void.self) { group in
        for (index, branch) in branches.enumerated() {
          group.addTask {
            for step in 0..<150 {
              switch step % 5 {
              case 0: branch.leaves[0].value = step
              case 1: branch.node.environment.modificationsLevel = step
              case 2: branch.node.preference.modificationsTotal = step
              case 3: branch.leaves.append(Leaf(value: step))
              default:
                branch.node.transaction {
                  branch.name = "b\(index)-\(step)"
                  branch.leaves.removeLast()
                }
              }
              steps.add()
              // Lets the observers below come and go between steps, also when the pool
              // has a single thread free for this test.
              if step % 10 == 9 { await Task.yield() }
            }
            writersDone.add()
          }
        }
        // Observers come and go while the writers write: as long as they write, not a
        // fixed number of rounds (each round waits for a turn on the pool).
        group.addTask {
          repeat {
            var iterator = forest.observeModifications(scope: .children, kinds: .parentRelationship).makeAsyncIterator()
            _ = iterator
            iterator = forest.observeModifications().makeAsyncIterator()
            _ = iterator
            churned.add()
            await Task.yield()
          } while writersDone.value < branches.count && !Task.isCancelled
        }
      }
    }
    #expect(churned.value > 0)
    #expect(branches.allSatisfy { $0.leaves.count == 1 })
    await expectEventually("the consumer to see the writers' transactions") { count.value > 0 }
    let seen = count.value
    forest.title = "marker"
    await expectEventually("the marker's emission") { count.value > seen }
    var probes = Probes()
    probes.add("quiet leaf", quietProperties)
    probes.add("quiet branch", quietBranch)
    #expect(try await probes.emitted() == [], "nothing wrote the quiet branch")
    consumer.cancel()
    try await withDeadline("the consumer to end once cancelled") { await consumer.value }
  }
}
