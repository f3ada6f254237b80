import ArborTesting
import Dispatch
import Foundation
import Testing

/// The helpers for a busy machine: `withProgressDeadline` and `onOwnThread`.
@Suite struct ProgressDeadlineTests {
  @Test func workThatKeepsProgressingOutlastsTheDeadline() async throws {
    // The progress moves each time the watch reads it (every 100 ms), and the work ends
    // only after 10 readings: it lasts 1 s or more, three times the deadline of 0.3 s
    // without progress, and never stalls, however loaded the machine is.
    let readings = Tally()
    let result = try await withProgressDeadline("10 readings of the progress", seconds: 0.3, progress: {
      readings.add()
      return readings.value
    }) {
      while readings.value < 10 { try await Task.sleep(for: .milliseconds(5)) }
      return readings.value
    }
    #expect(result >= 10)
  }

  @Test func workThatStopsProgressingFailsWithWhereItStuck() async throws {
    let steps = Tally()
    steps.add(3)
    let gate = Gate()
    // Should the deadline not work, the gate opens by itself and the test fails, not hangs.
    DispatchQueue.global().asyncAfter(deadline: .now() + 60) { gate.open() }
    let line = #line + 3
    await withKnownIssue {
      do {
        try await withProgressDeadline("a gate nobody opens", seconds: 0.2, progress: { steps.value }) {
          await gate.wait()
        }
        Issue.record("the operation finished first: the deadline did not expire")
      } catch let error as NoProgress {
        #expect(error.stuckAt == 3)
        #expect(error.description.hasPrefix("No progress for 0.2 s waiting for a gate nobody opens (stuck at 3 steps, "))
      } catch {
        Issue.record("not a NoProgress: \(error)")
      }
    } matching: { issue in
      issue.comments.contains { $0.rawValue.hasPrefix("No progress for 0.2 s waiting for a gate nobody opens") }
        && issue.sourceLocation?.fileName == "ProgressDeadlineTests.swift" && issue.sourceLocation?.line == line
    }
    gate.open()
  }

  @Test func theOperationsErrorPassesThrough() async {
    struct Refused: Error, Equatable {}
    await #expect(throws: Refused()) {
      try await withProgressDeadline("an operation that fails", progress: { 0 }) { throw Refused() }
    }
  }

  @Test func ownThreadRunsTheBodyAndItsChildTasksOffThePool() async throws {
    func threadName() -> String {
      (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
    }
    let names = await onOwnThread("own-thread-test") { () async -> [String] in
      let before = threadName()
      await Task.yield()
      async let child = threadName()
      let inGroup = await withTaskGroup(of: String.self) { group in
        group.addTask { threadName() }
        return await group.next() ?? ""
      }
      return [before, threadName(), await child, inGroup]
    }
    #expect(names == Array(repeating: "own-thread-test", count: 4))
  }
}
