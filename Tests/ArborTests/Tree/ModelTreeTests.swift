@testable import Arbor
import ArborTesting
import IssueReporting
import Testing

/// Misuse found while a lock is held is reported once the lock is released: an issue
/// reporter is user code (it may log, read the tree, or wait for a thread that does). Each
/// test reports through a `LockCheckingReporter` whose probe reads a model guarded by the
/// lock in question from another thread, with a deadline.
@Suite struct ModelTreeTests {
  @Test func writingToAFrozenCopyIsReportedWithItsLockReleased() {
    let leaf = Leaf(value: 1, label: "a").withAnchor()
    let frozen = leaf.frozenCopy
    let reporter = LockCheckingReporter { _ = frozen.value }
    withIssueReporters([reporter]) {
      frozen.value = 5
      frozen.value += 5
      frozen.label.append("b")
    }
    #expect(reporter.reports.count == 3)
    #expect(reporter.reports.allSatisfy { $0.lockWasFree }, "reported with the frozen copy's lock held")
    #expect(reporter.reports.allSatisfy { $0.message.contains("frozen copy") })
    #expect(frozen.value == 1 && frozen.label == "a")
  }

  @Test func aFrozenCopyJoiningATreeIsReportedWithTheTreeLockReleased() {
    let branch = Branch(name: "r").withAnchor()
    let frozen = Leaf(value: 1).frozenCopy
    let reporter = LockCheckingReporter { _ = branch.name }
    withIssueReporters([reporter]) {
      branch.extra = frozen
    }
    #expect(reporter.reports.map(\.lockWasFree) == [true], "reported with the tree lock held")
    #expect(reporter.reports.first?.message.contains("frozen copy") == true)
  }

  @Test func aModelMovingBetweenTreesIsReportedWithTheTreeLockReleased() {
    let first = Branch(name: "first").withAnchor()
    let second = Branch(name: "second").withAnchor()
    let leaf = Leaf()
    first.leaves.append(leaf)
    let reporter = LockCheckingReporter { _ = second.name }
    withIssueReporters([reporter]) {
      second.leaves.append(leaf)
    }
    #expect(reporter.reports.map(\.lockWasFree) == [true], "reported with the tree lock held")
    #expect(reporter.reports.first?.message.contains("another tree") == true)
  }

  @Test func aSubtreeHoldingAModelOfAnotherTreeIsReportedWithTheTreeLockReleased() {
    let other = Branch(name: "other").withAnchor()
    let stranger = Leaf()
    other.leaves.append(stranger)
    let branch = Branch(name: "new", leaves: [stranger])
    let reporter = LockCheckingReporter { _ = branch.name }
    withIssueReporters([reporter]) {
      _ = branch.withAnchor()
    }
    #expect(reporter.reports.map(\.lockWasFree) == [true], "reported with the new tree's lock held")
    #expect(branch.lifetime == .anchored)
    #expect(branch.leaves.count == 1 && stranger.node.path?.description == "/leaves/0")
  }

  @Test func anchoringAModelTwiceIsReportedAfterTheAnchoring() {
    let leaf = Leaf().withAnchor()
    let reporter = LockCheckingReporter { _ = leaf.value }
    withIssueReporters([reporter]) {
      _ = leaf.withAnchor()
    }
    #expect(reporter.reports.contains { $0.message.contains("already anchored") })
    #expect(reporter.reports.allSatisfy { $0.lockWasFree })
  }
}
