import Arbor
import ArborTesting
import ConcurrencyExtras
import Testing

extension LocalKeys {
  var keysDraft: LocalStorage<String> { .init(defaultValue: "") }
}

extension EnvironmentKeys {
  var keysScheme: EnvironmentStorage<EnvScheme> { .init(defaultValue: .light) }
}

// What users write on the spellings' types: an initializer of their own on a descriptor,
// a property on an accessor that reads its keys. As typealiases of one generic, the
// accessor's extension extended every namespace's accessor, and `keysScheme` was not
// found there: each spelling stays a type of its own.
extension LocalStorage where Value == String {
  static func emptyText(name: String = #function) -> Self { .init(defaultValue: "", name: name) }
}

extension LocalKeys {
  var keysTitle: LocalStorage<String> { .emptyText() }
}

extension ModelEnvironment {
  var isDark: Bool { self.keysScheme == .dark }
}

/// SwiftModel 1.0's `node.local` and `node.environment`: the same behaviour as context
/// keys with local and environment propagation.
@Suite struct LocalAndEnvironmentKeysTests {
  @Test func usersExtendTheKeyTypesAsTypesOfTheirOwn() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let leaf = root.branches[0].leaves[0]
    #expect(leaf.node.local.keysTitle == "")
    leaf.node.local.keysTitle = "plan"
    #expect(leaf.node.local.keysTitle == "plan")
    #expect(LocalKeys().keysTitle.name == "keysTitle", "the key's name is its property's")
    #expect(!leaf.node.environment.isDark)
    root.node.environment.keysScheme = .dark
    #expect(leaf.node.environment.isDark)
  }

  @Test func aLocalValueStaysWithItsModel() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let branch = root.branches[0]
    #expect(branch.node.local.keysDraft == "")
    branch.node.local.keysDraft = "notes"
    #expect(branch.node.local.keysDraft == "notes")
    #expect(branch.leaves[0].node.local.keysDraft == "", "a child does not see its parent's local value")
    #expect(root.node.local.keysDraft == "", "a parent does not see it either")
    branch.node.removeLocal(\.keysDraft)
    #expect(branch.node.local.keysDraft == "")
  }

  @Test func anEnvironmentValueFlowsDownAndCanBeOverriddenAndRemoved() {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let branch = root.branches[0]
    let leaf = branch.leaves[0]
    root.node.environment.keysScheme = .dark
    #expect(leaf.node.environment.keysScheme == .dark, "inherited from the root")
    branch.node.environment.keysScheme = .light
    #expect(leaf.node.environment.keysScheme == .light, "the branch's override")
    #expect(root.node.environment.keysScheme == .dark)
    branch.node.removeEnvironment(\.keysScheme)
    #expect(leaf.node.environment.keysScheme == .dark, "the root's value again")
  }

  @Test func aValueSetBeforeAnchoringIsKept() {
    let leaf = EnvLeaf()
    leaf.node.local.keysDraft = "early"
    let root = EnvRoot(branches: [EnvBranch(leaves: [leaf])]).withAnchor()
    #expect(root.branches[0].leaves[0].node.local.keysDraft == "early")
  }

  @Test func readsAreObservable() async {
    let root = EnvRoot(branches: [EnvBranch(leaves: [EnvLeaf()])]).withAnchor()
    let leaf = root.branches[0].leaves[0]
    let seen = LockIsolated<[EnvScheme]>([])
    let task = Task { for await scheme in Observed({ leaf.node.environment.keysScheme }) { seen.withValue { $0.append(scheme) } } }
    defer { task.cancel() }
    await expectEventually("the first value") { seen.value == [.light] }
    root.node.environment.keysScheme = .dark
    await expectEventually("the inherited change") { seen.value == [.light, .dark] }
    let drafts = LockIsolated<[String]>([])
    let local = Task { for await draft in Observed({ leaf.node.local.keysDraft }) { drafts.withValue { $0.append(draft) } } }
    defer { local.cancel() }
    await expectEventually("the first draft") { drafts.value == [""] }
    leaf.node.local.keysDraft = "x"
    await expectEventually("the new draft") { drafts.value == ["", "x"] }
  }

  @Test func aKeysNameIsThePropertyThatDeclaresIt() {
    #expect(LocalKeys()[keyPath: \.keysDraft].name == "keysDraft")
    #expect(EnvironmentKeys()[keyPath: \.keysScheme].name == "keysScheme")
    #expect(ContextKeys()[keyPath: \.envColorScheme].name == "envColorScheme")
    #expect(PreferenceKeys()[keyPath: \.envTotalCount].name == "envTotalCount")
  }
}
