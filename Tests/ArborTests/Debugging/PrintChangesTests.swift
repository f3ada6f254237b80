@testable import Arbor
import ArborTesting
import ConcurrencyExtras
import Testing

/// `_printChanges()`: each committed change of the model's subtree as a diff of its state.
@Suite struct PrintChangesTests {
  @Test func eachChangeIsPrintedAsADiffUntilCancelled() {
    let lines = LockIsolated<[String]>([])
    let root = Branch(name: "root", leaves: [Leaf(value: 1)]).withAnchor()
    let handle = root._printChanges { line in lines.withValue { $0.append(line) } }
    root.leaves[0].value = 2
    root.name = "renamed"
    handle.cancel()
    root.name = "after"
    #expect(lines.value.count == 2, "\(lines.value)")
    #expect(lines.value.first?.contains("Branch at revision 1:") == true, "\(lines.value)")
    #expect(lines.value.first?.contains("-       \"value\": 1") == true, "\(lines.value)")
    #expect(lines.value.first?.contains("+       \"value\": 2") == true, "\(lines.value)")
    #expect(lines.value.last?.contains("+   \"name\": \"renamed\"") == true, "\(lines.value)")
  }
}
