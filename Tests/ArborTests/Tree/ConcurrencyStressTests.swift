import Arbor
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
    let changes = anchor.changeSets()
    let deadline = Date().addingTimeInterval(Self.seconds)
    let increments = Tally()
    let observations = Tally()

    let observerTasks = (0..<4).map { index in
      Task {
        for await _ in Observed({ forest.branches[index].leaves.reduce(0) { $0 + $1.value } }) {
          observations.add()
        }
      }
    }
    await withTaskGroup(of: Void.self) { group in
      for writer in 0..<4 {
        group.addTask {
          var round = 0
          while Date() < deadline {
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
            // Busy loops that never suspend hold the pool's threads for the whole run,
            // which stalled the parallel test run on this platform (see Testing.md).
            await Task.yield()
          }
        }
      }
      group.addTask {
        while Date() < deadline {
          forest.node.transaction {
            forest.title = "t\(forest.branches.count)"
          }
          _ = forest.branches.map(\.leaves.count)
          await Task.yield()
        }
      }
    }
    for task in observerTasks { task.cancel() }

    let total = forest.branches.flatMap(\.leaves).reduce(0) { $0 + $1.value }
    let initial = 4 * (0 + 1 + 2 + 3)
    #expect(total == initial + increments.value)
    #expect(forest.branches.allSatisfy { $0.leaves.count == 4 })
    #expect(observations.value >= 4)

    let revision = anchor.revision
    var expected: UInt64 = 1
    for try await changeSet in changes {
      #expect(changeSet.revision == expected)
      expected += 1
      if changeSet.revision == revision { break }
    }
  }
}
