import Arbor
import ArborTesting
import ConcurrencyExtras
import Foundation
import Synchronization
import Testing

/// Many tasks writing, restructuring and observing one tree at once. Its length is
/// `ARBOR_STRESS_SECONDS` (default 2); CI runs a short one.
@Suite struct ConcurrencyStressTests {
  static var seconds: Double {
    ProcessInfo.processInfo.environment["ARBOR_STRESS_SECONDS"].flatMap(Double.init) ?? 2
  }

  @Test func concurrentWritersReadersAndObserversKeepTheTreeConsistent() async throws {
    let (forest, anchor) = Forest(branches: (0..<4).map { Branch(name: "b\($0)", leaves: (0..<4).map { Leaf(value: $0) }) }).andAnchor()
    let initialSum = 0 + 1 + 2 + 3
    // The reader below keeps up while the writers run; the limit only bounds memory should
    // it fall behind.
    let changes = anchor.changeSets(limit: 1_000_000)
    let increments = Tally()
    let observations = Tally()
    let lastObserved = LockIsolated([Int](repeating: -1, count: 4))
    let firstObserved = LockIsolated([Int](repeating: -1, count: 4))

    let observerTasks = (0..<4).map { index in
      Task {
        for await sum in Observed({ forest.branches[index].leaves.reduce(0) { $0 + $1.value } }) {
          observations.add()
          firstObserved.withValue { if $0[index] == -1 { $0[index] = sum } }
          lastObserved.withValue { $0[index] = sum }
        }
      }
    }

    // Reads the change sets as they are committed, up to the last revision, checking that
    // revisions have no gap; returns the revision after the last one read. It waits for a
    // change set only once the tree's revision says it was committed, and its end is
    // awaited with a deadline below (which cancels it).
    let lastRevision = LockIsolated<UInt64?>(nil)
    let read = Tally()
    let reader = Task { () throws -> UInt64 in
      var iterator = changes.makeAsyncIterator()
      var expected: UInt64 = 1
      while !Task.isCancelled {
        if let last = lastRevision.value, expected > last { break }
        guard anchor.revision >= expected else {
          await Task.yield()
          continue
        }
        guard let changeSet = try await iterator.next() else { break }
        #expect(changeSet.revision == expected)
        expected = changeSet.revision + 1
        read.add()
      }
      return expected
    }
    defer { reader.cancel() }

    // The clock decides how many more rounds run, not whether one does: on a busy machine
    // the writers may start after the deadline has passed.
    // The wait's deadline is about the rounds: it fails if none is done for 20 s.
    let deadline = Date().addingTimeInterval(Self.seconds)
    let rounds = Tally()
    try await withProgressDeadline("the writers to stop after \(Self.seconds) s", progress: { rounds.value }) {
      await withTaskGroup(of: Void.self) { group in
        for writer in 0..<4 {
          group.addTask {
            var round = 0
            repeat {
              let branch = forest.branches[writer]
              for leaf in branch.leaves {
                leaf.value += 1
                increments.add()
              }
              if round % 10 == 0 {
                branch.leaves.append(Leaf(value: 0))
                branch.leaves.removeLast()
              }
              round += 1
              rounds.add()
              // A loop that never suspends holds a thread of the pool (two on a 2-core
              // machine) for its whole run, and the other tests of the parallel run wait.
              await Task.yield()
            } while Date() < deadline && !Task.isCancelled
          }
        }
        group.addTask {
          repeat {
            forest.node.transaction {
              forest.title = "t\(forest.branches.count)"
            }
            _ = forest.branches.map(\.leaves.count)
            rounds.add()
            await Task.yield()
          } while Date() < deadline && !Task.isCancelled
        }
      }
    }
    let revision = anchor.revision
    lastRevision.setValue(revision)

    let total = forest.branches.flatMap(\.leaves).reduce(0) { $0 + $1.value }
    let initial = 4 * initialSum
    #expect(increments.value >= 16, "each writer ran at least one round")
    #expect(total == initial + increments.value)
    #expect(forest.branches.allSatisfy { $0.leaves.count == 4 })

    // Each observer saw its branch's first sum and, before being cancelled, its last.
    let finalSums = forest.branches.map { $0.leaves.reduce(0) { $0 + $1.value } }
    #expect(finalSums.allSatisfy { $0 > initialSum }, "every leaf was incremented")
    await expectEventually("each observer to see its branch's final sum \(finalSums)") { lastObserved.value == finalSums }
    #expect(firstObserved.value == [Int](repeating: initialSum, count: 4))
    #expect(observations.value >= 8, "an initial and a final value per observer")
    for (index, task) in observerTasks.enumerated() {
      task.cancel()
      try await withDeadline("observer \(index) to end once cancelled") { await task.value }
    }

    #expect(revision > 0)
    let next = try await withProgressDeadline("the change sets up to revision \(revision)", progress: { read.value }) {
      try await reader.value
    }
    #expect(next == revision + 1, "every change set up to the last revision was read")
  }
}
