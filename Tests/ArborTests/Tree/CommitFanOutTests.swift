@testable import Arbor
import Synchronization
import Testing

/// The tree hands each commit to its ``CommitFanOut``: a tree nobody follows commits
/// quietly; a listener, a tap or an undo recorder makes its commits go through the fan-out,
/// in revision order; a retired tree's commits reach nobody.
@Suite struct CommitFanOutTests {
  @Test func aTreeNobodyFollowsCommitsQuietlyAndAListenerEndsThat() throws {
    let leaf = Leaf().withAnchor()
    let tree = try #require(leaf._$anyContext.tree)
    #expect(tree.fanOut.ignoresTransactions && tree.fanOut.ignoresChanges, "a new tree has no follower")
    leaf.value = 1
    #expect(tree.revision == 1)

    let seen = Mutex<[UInt64]>([])
    var listener: ChangeSetListener? = tree.listen(limit: 10) { delivery in
      if case .committed(let changeSet) = delivery { seen.withLock { $0.append(changeSet.revision) } }
    }
    #expect(!tree.fanOut.ignoresChanges && tree.fanOut.isRecording, "a listener follows the changes")
    leaf.value = 2
    leaf.label = "b"
    #expect(seen.withLock { $0 } == [2, 3], "each commit reaches the listener, in order")

    listener?.cancel()
    listener = nil
    #expect(tree.fanOut.ignoresChanges, "the listener gone, commits are quiet again")
    leaf.value = 3
    #expect(seen.withLock { $0 } == [2, 3] && tree.revision == 4)
  }

  @Test func aModificationTapGetsEachTransactionWithItsRevision() throws {
    let leaf = Leaf().withAnchor()
    let tree = try #require(leaf._$anyContext.tree)
    let batches = Mutex<[(UInt64, Int)]>([])
    let tap = tree.fanOut.tapModifications { batch in batches.withLock { $0.append((batch.revision, batch.changes.count)) } }
    #expect(!tree.fanOut.ignoresTransactions, "a tap follows every transaction")
    leaf.value = 7
    leaf.node.transaction {
      leaf.value = 8
      leaf.label = "x"
    }
    #expect(batches.withLock { $0.map(\.0) } == [1, 2] && batches.withLock { $0.map(\.1) } == [1, 2])
    withExtendedLifetime(tap) {}
  }

  @Test func aRetiredTreesCommitsReachNoListener() throws {
    let leaf = Leaf().withAnchor()
    let anchor = try #require(leaf._$anyContext.tree)
    let count = Atomic<Int>(0)
    let listener = anchor.listen(limit: 10) { _ in count.add(1, ordering: .relaxed) }
    leaf.value = 1
    anchor.lock.withLock { anchor.fanOut.retired = true }
    leaf.value = 2
    #expect(count.load(ordering: .relaxed) == 1, "only the commit before the retirement was delivered")
    #expect(anchor.revision == 2, "the retired tree still counts its own revisions")
    listener.cancel()
  }
}
