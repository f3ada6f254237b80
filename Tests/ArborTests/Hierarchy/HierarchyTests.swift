import Arbor
import ArborTesting
import Testing

@Model struct Editor {
  var title = ""
  var isDirty = false
}

@Model struct Document {
  var editors: [Editor] = []
  var hasUnsavedChanges = false

  func onActivate() {
    node.forEach(Observed { node.mapHierarchy(for: [.self, .descendants]) { ($0 as? Editor)?.isDirty } }) { flags in
      hasUnsavedChanges = flags.contains(true)
    }
  }
}

/// `mapHierarchy` and `reduceHierarchy` over every relation, and an `Observed` of them
/// re-firing on property changes of visited models and on models joining or leaving.
@Suite struct HierarchyTests {
  @Test func queriesVisitWhatTheirRelationNames() {
    let document = Document(editors: [Editor(title: "a"), Editor(title: "b")]).withAnchor()
    #expect(document.node.mapHierarchy(for: [.self, .descendants]) { ($0 as? Editor)?.title } == ["a", "b"])
    #expect(document.node.mapHierarchy(for: .children) { ($0 as? Editor)?.title } == ["a", "b"])
    #expect(document.node.mapHierarchy(for: .self) { $0 is Document } == [true])
    #expect(document.node.mapHierarchy(for: .descendants) { $0 is Document }.allSatisfy { !$0 }, "not itself")
    let first = document.editors[0]
    #expect(first.node.mapHierarchy(for: .ancestors) { ($0 as? Document)?.editors.count } == [2], "the root reached as an ancestor")
    #expect(first.node.mapHierarchy(for: .parent) { $0 is Document } == [true])
    #expect(first.node.mapHierarchy(for: .children) { $0 }.isEmpty)

    // Three levels, folded: leaves under branches under a root branch.
    let root = Branch(name: "root", leaves: [Leaf(value: 1)], extra: Leaf(value: 10)).withAnchor()
    let total = root.node.reduceHierarchy(for: [.self, .descendants], transform: { ($0 as? Leaf)?.value }, into: 0) { $0 += $1 }
    #expect(total == 11)
    let leaf = root.leaves[0]
    #expect(leaf.node.mapHierarchy(for: [.self, .ancestors]) { ($0 as? Branch)?.name ?? "leaf" } == ["leaf", "root"])
  }

  @Test func anObservedHierarchyQueryFollowsPropertyChangesAndModelsJoiningOrLeaving() async throws {
    let document = Document(editors: [Editor(title: "a")]).withAnchor()
    let dirty = DeadlineIterator(Observed { document.node.mapHierarchy(for: [.self, .descendants]) { ($0 as? Editor)?.isDirty } })
    #expect(try await dirty.next("the first flags") == [false])
    document.editors[0].isDirty = true
    #expect(try await dirty.next("a property of a visited model changed") == [true])
    document.editors.append(Editor(title: "b", isDirty: false))
    #expect(try await dirty.next("a model joined") == [true, false])
    // The new editor's property is tracked too.
    document.editors[1].isDirty = true
    #expect(try await dirty.next("the new model's property changed") == [true, true])
    document.editors.remove(at: 0)
    #expect(try await dirty.next("a model left") == [true])
  }

  @Test func theGuidesUnsavedChangesExampleIncludesANewlyAddedEditor() async {
    let document = Document().withAnchor()
    document.editors.append(Editor(title: "new"))
    await expectEventually("no unsaved changes yet") { document.hasUnsavedChanges == false }
    document.editors[0].isDirty = true
    await expectEventually("the new editor's change is seen") { document.hasUnsavedChanges }
    document.editors[0].isDirty = false
    await expectEventually("and its undoing") { document.hasUnsavedChanges == false }
  }

  @Test func uniquelyReferencedFollowsSharing() async throws {
    let shared = Leaf(value: 1)
    let root = Branch(name: "root", leaves: [shared]).withAnchor()
    let exclusive = DeadlineIterator(shared.node.uniquelyReferenced())
    #expect(try await exclusive.next("the current value") == true)
    root.extra = shared
    #expect(try await exclusive.next("shared by a second place") == false)
    root.name = "renamed"
    root.extra = nil
    #expect(try await exclusive.next("exclusive again, with no duplicate in between") == true)
  }
}
