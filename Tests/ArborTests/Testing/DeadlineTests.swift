import ArborTesting
import Dispatch
import Testing

/// A recorded issue whose comment is `message`.
func isIssue(_ issue: Issue, saying message: String) -> Bool {
  issue.comments.contains { $0.rawValue == message }
}

@Suite struct DeadlineTests {
  @Test func anOperationThatEndsInTimeGivesItsResult() async throws {
    #expect(try await withDeadline("a quick answer") { 6 * 7 } == 42)
  }

  @Test func anOperationThatIgnoresCancellationStillTimesOutWithItsName() async throws {
    let gate = Gate()
    // Should the deadline not work, the gate opens by itself and the test fails, not hangs.
    DispatchQueue.global().asyncAfter(deadline: .now() + 15) { gate.open() }
    let line = #line + 3
    await withKnownIssue {
      do {
        try await withDeadline("a gate nobody opens", seconds: 0.2) { await gate.wait() }
        Issue.record("the operation finished first: the deadline did not expire")
      } catch let error as DeadlineExceeded {
        #expect(error.description == "Timed out after 0.2 s waiting for a gate nobody opens")
      } catch {
        Issue.record("not a DeadlineExceeded: \(error)")
      }
    } matching: { issue in
      isIssue(issue, saying: "Timed out after 0.2 s waiting for a gate nobody opens")
        && issue.sourceLocation?.fileName == "DeadlineTests.swift" && issue.sourceLocation?.line == line
    }
    gate.open()
  }

  @Test func theOperationsErrorPassesThrough() async {
    struct Refused: Error, Equatable {}
    await #expect(throws: Refused()) {
      try await withDeadline("an operation that fails") { throw Refused() }
    }
  }

  @Test func cancellingTheCallerCancelsTheOperation() async throws {
    let caller = Task {
      try await withDeadline("a long sleep", seconds: 600) { try await Task.sleep(for: .seconds(600)) }
    }
    caller.cancel()
    let result = try await withDeadline("the cancelled caller") { await caller.result }
    #expect(throws: CancellationError.self) { try result.get() }
  }
}
