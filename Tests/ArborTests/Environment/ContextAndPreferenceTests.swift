import Arbor
import ArborTesting
import Testing

enum EnvScheme: Sendable, Equatable { case light, dark }

extension ContextKeys {
  var envIsFeatureEnabled: ContextStorage<Bool> {
    .init(defaultValue: false)
  }
  var envColorScheme: ContextStorage<EnvScheme> {
    .init(defaultValue: .light, propagation: .environment)
  }
}

extension PreferenceKeys {
  var envTotalCount: PreferenceStorage<Int> {
    .init(defaultValue: 0) { $0 += $1 }
  }
  var envHasUnsavedChanges: PreferenceStorage<Bool> {
    .init(defaultValue: false) { $0 = $0 || $1 }
  }
  var envOrder: PreferenceStorage<[String]> {
    .init(defaultValue: []) { $0 += $1 }
  }
}

@Model struct EnvLeaf {
  var name = ""
}

@Model struct EnvBranch {
  var name = ""
  var leaves: [EnvLeaf] = []
  var extra: EnvLeaf? = nil
}

@Model struct EnvRoot {
  var branches: [EnvBranch] = []
}

/// The guide's unsaved-changes example: each editor publishes its dirty flag as a
/// preference; the document reads the aggregate.
@Model struct EnvEditor {
  var isDirty = false

  func onActivate() {
    node.forEach(Observed { isDirty }) { dirty in
      node.preference.envHasUnsavedChanges = dirty
    }
  }
}

@Model struct EnvDocument {
  var editors: [EnvEditor] = []

  var showsUnsavedIndicator: Bool {
    node.preference.envHasUnsavedChanges
  }
}

@Model struct EnvTallied {
  var branches: [EnvBranch] = []
  @ModelIgnored var computations: Tally? = nil

  var memoizedTotal: Int {
    node.memoize(for: "total") {
      computations?.add()
      return node.preference.envTotalCount
    }
  }
}

/// `ContextKeys`/`PreferenceKeys`: values that flow down (context) and up (preferences) the
/// model hierarchy, read through `node.context` and `node.preference`, and observable.
@Suite struct ContextAndPreferenceTests {
  // MARK: Context

  @Test func aLocalContextValueIsReadWrittenAndNotInherited() {
    let root = EnvBranch(leaves: [EnvLeaf()]).withAnchor()
    #expect(root.node.context.envIsFeatureEnabled == false)
    root.node.context.envIsFeatureEnabled = true
    #expect(root.node.context.envIsFeatureEnabled == true)
    #expect(root.leaves[0].node.context.envIsFeatureEnabled == false, "local values do not flow down")
    root.node.removeContext(\.envIsFeatureEnabled)
    #expect(root.node.context.envIsFeatureEnabled == false)
  }

  @Test func anEnvironmentValueFlowsDownAndCanBeOverriddenLocally() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf(), EnvLeaf()])]).withAnchor()
    let branch = root.branches[0]
    let leaf = branch.leaves[0]
    #expect(leaf.node.context.envColorScheme == .light, "the default")
    root.node.context.envColorScheme = .dark
    #expect(leaf.node.context.envColorScheme == .dark, "inherited from the root")
    branch.node.context.envColorScheme = .light
    #expect(leaf.node.context.envColorScheme == .light, "the branch's override")
    #expect(root.node.context.envColorScheme == .dark, "an override does not flow up")
    branch.node.removeContext(\.envColorScheme)
    #expect(leaf.node.context.envColorScheme == .dark, "inherits again after the override is removed")
  }

  @Test func aValueSetBeforeAnchoringIsKept() {
    let branch = EnvBranch(leaves: [EnvLeaf()])
    branch.node.context.envColorScheme = .dark
    let root = EnvRoot(branches: [branch]).withAnchor()
    #expect(root.branches[0].leaves[0].node.context.envColorScheme == .dark)
  }

  @Test func anObservedContextReadRefiresWhenAnAncestorOrOverrideChanges() async throws {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let branch = root.branches[0]
    let leaf = branch.leaves[0]
    let values = DeadlineIterator(Observed { leaf.node.context.envColorScheme })
    #expect(try await values.next("the initial scheme") == .light)
    root.node.context.envColorScheme = .dark
    #expect(try await values.next("the root's scheme") == .dark)
    branch.node.context.envColorScheme = .light
    #expect(try await values.next("the branch's override") == .light)
    branch.node.removeContext(\.envColorScheme)
    #expect(try await values.next("the root's scheme again") == .dark)
  }

  // MARK: Preferences

  @Test func aPreferenceIsTheReductionOverTheSubtree() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf(), EnvLeaf()]), EnvBranch()]).withAnchor()
    #expect(root.node.preference.envTotalCount == 0, "the default without contributions")
    root.branches[0].leaves[0].node.preference.envTotalCount = 3
    root.branches[0].leaves[1].node.preference.envTotalCount = 4
    root.branches[1].node.preference.envTotalCount = 10
    root.node.preference.envTotalCount = 100
    #expect(root.node.preference.envTotalCount == 117)
    #expect(root.branches[0].node.preference.envTotalCount == 7)
    #expect(root.branches[0].leaves[1].node.preference.envTotalCount == 4)
    root.branches[0].leaves[0].node.removePreference(\.envTotalCount)
    #expect(root.node.preference.envTotalCount == 114)
  }

  @Test func contributionsAreReducedSelfFirstThenDepthFirst() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()]), EnvBranch()]).withAnchor()
    root.branches[1].node.preference.envOrder = ["b1"]
    root.branches[0].leaves[0].node.preference.envOrder = ["b0.l0"]
    root.branches[0].node.preference.envOrder = ["b0"]
    root.node.preference.envOrder = ["root"]
    #expect(root.node.preference.envOrder == ["root", "b0", "b0.l0", "b1"])
  }

  @Test func anObservedPreferenceRefiresWhenContributionsChangeAndChildrenComeAndGo() async throws {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let totals = DeadlineIterator(Observed { root.node.preference.envTotalCount })
    #expect(try await totals.next("the initial total") == 0)
    root.branches[0].leaves[0].node.preference.envTotalCount = 2
    #expect(try await totals.next("a leaf's contribution") == 2)

    let joining = EnvLeaf()
    joining.node.preference.envTotalCount = 5
    root.branches[0].leaves.append(joining)
    #expect(try await totals.next("a contributor joined") == 7)

    let extra = EnvLeaf()
    extra.node.preference.envTotalCount = 30
    root.branches[0].extra = extra
    #expect(try await totals.next("an optional child joined") == 37)
    root.branches[0].extra = nil
    #expect(try await totals.next("the optional child left") == 7)

    root.branches[0].leaves.remove(at: 0)
    #expect(try await totals.next("a contributor left") == 5)
    root.branches = []
    #expect(try await totals.next("the whole branch left") == 0)
  }

  @Test func theUnsavedChangesExampleAggregatesEditorsDirtyFlags() async throws {
    let document = EnvDocument(editors: [EnvEditor(), EnvEditor()]).withAnchor()
    let indicator = DeadlineIterator(Observed { document.showsUnsavedIndicator })
    #expect(try await indicator.next("the initial indicator") == false)
    document.editors[1].isDirty = true
    #expect(try await indicator.next("an editor became dirty") == true)
    document.editors[1].isDirty = false
    #expect(try await indicator.next("the editor was saved") == false)
    document.editors.append(EnvEditor(isDirty: true))
    #expect(try await indicator.next("a dirty editor was added") == true)
    document.editors.removeLast()
    #expect(try await indicator.next("the dirty editor was removed") == false)
  }

  @Test func aWriteInvalidatesOnlyReadersOfThatKey() {
    let tally = Tally()
    let root = EnvTallied(branches: [EnvBranch()], computations: tally).withAnchor()
    let branch = root.branches[0]
    #expect(root.memoizedTotal == 0)
    #expect(tally.value == 1)
    branch.node.preference.envOrder = ["another preference"]
    branch.node.context.envIsFeatureEnabled = true
    root.node.context.envColorScheme = .dark
    #expect(root.memoizedTotal == 0)
    #expect(tally.value == 1, "writes of other keys leave the memoized read valid")
    branch.node.preference.envTotalCount = 1
    #expect(root.memoizedTotal == 1)
    #expect(tally.value == 2, "a contribution to the key invalidates it")
  }

  @Test func severalTasksContributeConcurrently() async throws {
    let leaves = (0..<8).map { _ in EnvLeaf() }
    let root = EnvRoot(branches: [EnvBranch(leaves: leaves)]).withAnchor()
    let anchoredLeaves = root.branches[0].leaves
    let steps = Tally()
    try await withProgressDeadline("eight tasks writing contributions and context values", progress: { steps.value }) {
      await withTaskGroup(of: Void.self) { group in
        for leaf in anchoredLeaves {
          group.addTask {
            for round in 1...50 {
              leaf.node.preference.envTotalCount = round
              leaf.node.context.envColorScheme = round.isMultiple(of: 2) ? .dark : .light
              _ = root.node.preference.envTotalCount
              _ = leaf.node.context.envColorScheme
              steps.add()
            }
          }
        }
        group.addTask {
          for round in 0..<50 {
            root.node.context.envColorScheme = round.isMultiple(of: 2) ? .dark : .light
            steps.add()
          }
        }
      }
    }
    #expect(root.node.preference.envTotalCount == 8 * 50)
    #expect(anchoredLeaves.allSatisfy { $0.node.context.envColorScheme == .dark }, "each leaf's last write (round 50) is its own override")
  }

  @Test func anObserverFollowsContributionsFromSeveralTasks() async throws {
    let root = EnvRoot(branches: [EnvBranch(leaves: (0..<4).map { _ in EnvLeaf() })]).withAnchor()
    let leaves = root.branches[0].leaves
    let totals = DeadlineIterator(Observed { root.node.preference.envTotalCount })
    #expect(try await totals.next("the initial total") == 0)
    let steps = Tally()
    try await withProgressDeadline("four tasks writing 25 contributions each", progress: { steps.value }) {
      await withTaskGroup(of: Void.self) { group in
        for leaf in leaves {
          group.addTask {
            for round in 1...25 {
              leaf.node.preference.envTotalCount = round
              steps.add()
            }
          }
        }
      }
    }
    var last = 0
    while last != 100 {
      last = try await totals.next("the total to reach 100 (last seen \(last))")
    }
    #expect(last == 100)
  }
}
