import Arbor
import ArborDaemonTesting
import ArborTesting
import CounterFact
import Testing

/// The testers from the main actor, as XCTest suites and SwiftUI apps' tests are written:
/// a `@MainActor` suite in Swift 6 language mode, in a package that enables no upcoming
/// feature (this package enables none). Each call hands the tester a closure that is not
/// `Sendable`; the testers' async API runs on the caller's actor (`nonisolated(nonsending)`),
/// so the closure never leaves it. This file compiling is half of the test.
@MainActor @Suite struct CounterFactMainActorTests {
  @Test func theGuideTesterFromTheMainActor() async throws {
    let (model, tester) = AppModel().andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    let row = try await tester.unwrap(model.counters.first)
    row.counter.incrementTapped()
    await tester.assert {
      model.counters.count == 1
      row.counter.count == 1
    }
  }

  @Test(.modelTesting) func theModelTestingSpellingsFromTheMainActor() async throws {
    let model = AppModel().withAnchor {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    await settle()
    model.addButtonTapped()
    let row = try await require(model.counters.first)
    await withExhaustivity(.off) {
      row.counter.incrementTapped()
      await expect(row.counter.count == 1)
    }
    await expect(model.counters.count == 1)
  }

  @Test func theDaemonTesterFromTheMainActor() async throws {
    try await withDaemonTester(AppModel(), dependencies: { $0.factClient.fetch = { "\($0) is a good number." } }) { model, tester in
      try await tester.call("/", "addButtonTapped")
      let row = try await tester.unwrap(model.counters.first)
      try await tester.call(row.counter, "incrementTapped")
      await tester.assert {
        model.counters.count == 1
        row.counter.count == 1
      }
      }
  }
}

/// The same calls from a nonisolated suite: the other half of the users' styles.
@Suite struct CounterFactNonisolatedTesterTests {
  @Test func theGuideTesterFromANonisolatedTest() async throws {
    let (model, tester) = AppModel().andTester {
      $0.factClient.fetch = { "\($0) is a good number." }
    }
    model.addButtonTapped()
    let row = try await tester.unwrap(model.counters.first)
    await tester.assert { row.counter.count == 0 && model.counters.count == 1 }
  }
}
