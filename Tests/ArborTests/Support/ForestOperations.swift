import Arbor
import ArborTesting
import IdentifiedCollections

/// One random operation on a forest: appends, inserts and removals at any index, in-place
/// writes deep in the tree, whole-value replacements, dictionary and identified-array
/// edits, and transactions that insert a model and then change it.
func randomForestStep(_ forest: Forest, using random: inout SeededRandomNumberGenerator) {
  func index(_ count: Int) -> Int? { count == 0 ? nil : Int.random(in: 0..<count, using: &random) }
  func newLeaf() -> Leaf { Leaf(value: Int.random(in: -50...50, using: &random), label: ["a", "b/c", "d~e", ""].randomElement(using: &random)!) }
  func anyBranch() -> Branch? { index(forest.branches.count).map { forest.branches[$0] } }

  switch Int.random(in: 0..<14, using: &random) {
  case 0:
    forest.branches.append(Branch(name: "b\(Int.random(in: 0..<100, using: &random))", leaves: [newLeaf()]))
  case 1:
    if let at = index(forest.branches.count) { forest.branches.remove(at: at) }
  case 2:
    forest.branches.insert(Branch(name: "inserted"), at: Int.random(in: 0...forest.branches.count, using: &random))
  case 3:
    anyBranch()?.leaves.append(newLeaf())
  case 4:
    if let branch = anyBranch(), let at = index(branch.leaves.count) { branch.leaves.remove(at: at) }
  case 5:
    if let branch = anyBranch(), let at = index(branch.leaves.count) { branch.leaves[at].value += Int.random(in: 1...9, using: &random) }
  case 6:
    if let branch = anyBranch() { branch.extra = Bool.random(using: &random) ? newLeaf() : nil }
  case 7:
    let key = ["x", "y/z", "~k"].randomElement(using: &random)!
    if Bool.random(using: &random) { forest.keyed[key] = newLeaf() } else { forest.keyed[key] = nil }
  case 8:
    if Bool.random(using: &random) || forest.identified.isEmpty {
      forest.identified.append(newLeaf())
    } else if let at = index(forest.identified.count) {
      forest.identified.remove(at: at)
    }
  case 9:
    forest.title = "title \(Int.random(in: 0..<1000, using: &random))"
  case 10:
    forest.node.transaction {
      let branch = Branch(name: "fresh")
      forest.branches.append(branch)
      branch.leaves.append(newLeaf())
      branch.name = "renamed in the same transaction"
      branch.leaves[0].label = "changed after insert"
    }
  case 11:
    if forest.branches.count >= 2, let a = index(forest.branches.count), let b = index(forest.branches.count) {
      forest.branches.swapAt(a, b)
    }
  case 12:
    if let branch = anyBranch() { branch.leaves = (0..<Int.random(in: 0...3, using: &random)).map { _ in newLeaf() } }
  default:
    if let branch = anyBranch(), let leaf = branch.leaves.first {
      forest.node.transaction {
        leaf.value = 0
        branch.leaves.removeFirst()
        leaf.label = "removed, then changed"
      }
    }
  }
}
