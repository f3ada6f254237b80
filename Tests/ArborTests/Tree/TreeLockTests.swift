import Arbor
import ArborJSON
import ArborTesting
import IssueReporting
import Testing

/// User code that still runs under the tree lock (see "One lock per tree" in
/// Docs/Architecture.md): `==` of an `Equatable` property's old and new value, and
/// `encode(to:)` of a recorded value. Done reasonably — reading a model of the same tree or
/// of another tree, reporting an issue — it deadlocks nothing, even while other threads
/// write both trees. Every write runs on a thread of its own, waited for with a deadline.
@Suite struct TreeLockTests {
  static let rounds = 200

  @Test func equalityMayReadTheSameTree() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let calls = Tally()
    let hook = Hook {
      calls.add()
      _ = meter.other
    }
    try await Self.write(meter, hook: { Hooked($0, onCompare: hook) }, whileWriting: meter)
    #expect(calls.value >= Self.rounds, "== was not called on every write")
    #expect(meter.reading.number == Self.rounds)
    _ = anchor
  }

  @Test func equalityMayReadAnotherTree() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let (elsewhere, otherAnchor) = Meter().andAnchor()
    let calls = Tally()
    let hook = Hook {
      calls.add()
      _ = elsewhere.other
    }
    try await Self.write(meter, hook: { Hooked($0, onCompare: hook) }, whileWriting: elsewhere)
    #expect(calls.value >= Self.rounds, "== was not called on every write")
    _ = (anchor, otherAnchor)
  }

  @Test func equalityMayReportAnIssue() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let hook = Hook { reportIssue("compared") }
    try await withDeadline("a write whose == reports an issue") {
      withKnownIssue {
        meter.reading = Hooked(1, onCompare: hook)
      }
    }
    #expect(meter.reading.number == 1)
    _ = anchor
  }

  @Test func encodingMayReadTheSameTree() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets())
    let calls = Tally()
    let hook = Hook {
      calls.add()
      _ = meter.other
    }
    try await Self.write(meter, hook: { Hooked($0, onEncode: hook) }, whileWriting: meter)
    #expect(calls.value >= Self.rounds, "encode(to:) was not called on every recorded write")
    let first = try await changes.next("the change set of the first write")
    #expect(first.isExact)
    _ = try anchor.snapshot()
  }

  @Test func encodingMayReadAnotherTree() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let (elsewhere, otherAnchor) = Meter().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets())
    let otherChanges = DeadlineIterator(otherAnchor.changeSets())
    let calls = Tally()
    let hook = Hook {
      calls.add()
      _ = elsewhere.other
    }
    try await Self.write(meter, hook: { Hooked($0, onEncode: hook) }, whileWriting: elsewhere)
    #expect(calls.value >= Self.rounds, "encode(to:) was not called on every recorded write")
    #expect(try await changes.next("the change set of the first write").isExact)
    #expect(try await otherChanges.next("the change set of the other tree's first write").isExact)
  }

  @Test func encodingMayReportAnIssue() async throws {
    let (meter, anchor) = Meter().andAnchor()
    let changes = DeadlineIterator(anchor.changeSets())
    let hook = Hook { reportIssue("encoded") }
    try await withDeadline("a recorded write whose encode(to:) reports an issue") {
      withKnownIssue {
        meter.reading = Hooked(1, onEncode: hook)
      }
    }
    let changeSet = try await changes.next("the change set of the write")
    #expect(changeSet.changes.first?.value == .object(["number": .int(1)]))
  }

  /// Writes `meter.reading` `rounds` times (values 1 to `rounds`, each made by `value`) from
  /// a thread of its own while another thread writes `busy.other` as often; waits for both.
  static func write(
    _ meter: Meter, hook value: @escaping @Sendable (Int) -> Hooked, whileWriting busy: Meter
  ) async throws {
    async let writes: Void = OtherThread.run("\(rounds) writes whose user code runs under the tree lock") {
      for round in 1...rounds { meter.reading = value(round) }
    }
    async let otherWrites: Void = OtherThread.run("\(rounds) writes from another thread") {
      for round in 1...rounds { busy.other = round }
    }
    try await writes
    try await otherWrites
  }
}
