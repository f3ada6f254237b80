import Arbor
import ArborTesting
import Testing

@Suite struct ModelMacroTests {
  @Test func memberwiseInitializerKeepsWorking() {
    let leaf = Leaf(value: 3, label: "x")
    #expect(leaf.value == 3)
    #expect(leaf.label == "x")
    let named = Named(id: "a", score: 7)
    #expect(named.id == "a")
    #expect(named.score == 7)
    let defaulted = Named(id: "b")
    #expect(defaulted.score == 0)
  }

  @Test func customInitializerAssignsThroughTheContext() {
    let branch = Branch(name: "oak", leaves: [Leaf(value: 1)])
    #expect(branch.name == "oak")
    #expect(branch.leaves.map(\.value) == [1])
    #expect(branch.extra == nil)
  }

  @Test func letsStayPlainStoredProperties() {
    let stateless = Stateless(tag: "t")
    #expect(stateless.tag == "t")
    #expect(MemoryLayout<Stateless>.size == MemoryLayout<AnyObject>.size + MemoryLayout<String>.size)
  }

  @Test func aModelValueIsOneReferencePlusItsLets() {
    #expect(MemoryLayout<Forest>.size == MemoryLayout<AnyObject>.size)
    #expect(MemoryLayout<Box<Int>>.size == MemoryLayout<AnyObject>.size)
    #expect(MemoryLayout<Leaf>.size == MemoryLayout<AnyObject>.size + MemoryLayout<EventLog?>.size)
  }

  @Test func copiesShareState() {
    let leaf = Leaf(value: 1)
    let copy = leaf
    copy.value = 2
    #expect(leaf.value == 2)
  }

  @Test func generatedIdentityIsStableAndDistinct() {
    let a = Leaf()
    let b = Leaf()
    #expect(a.id == a.id)
    #expect(a.id != b.id)
    let copy = a
    #expect(copy.id == a.id)
  }

  @Test func declaredIdentityIsKept() {
    let named = Named(id: "custom")
    #expect(named.id == "custom")
  }

  @Test func genericModelsWork() {
    let box = Box(value: "hello")
    box.value += " world"
    #expect(box.value == "hello world")
  }

  @Test func modelsAreSendable() async throws {
    let leaf = Leaf(value: 1)
    try await withDeadline("a write from a detached task") { await Task.detached { leaf.value += 1 }.value }
    #expect(leaf.value == 2)
  }

  @Test func inPlaceMutationOfAnArrayProperty() {
    let forest = Forest()
    forest.branches.append(Branch(name: "a"))
    forest.branches[0].leaves.append(Leaf(value: 5))
    #expect(forest.branches[0].leaves[0].value == 5)
    forest.title += "!"
    #expect(forest.title == "forest!")
  }
}
