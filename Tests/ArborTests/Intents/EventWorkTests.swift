import Arbor
import ArborJSON
import ArborTesting
import Testing

@Model struct EventRow {
  enum Event: Sendable, Equatable { case removeTapped, renamed(to: String) }
  var name: String

  @Intent func removeTapped() { node.send(.removeTapped) }
  @Intent func rename(to name: String) {
    self.name = name
    node.send(.renamed(to: name))
  }
}

@Model struct EventList {
  var rows: [EventRow] = []
  var log: [String] = []
  var gate: String = ""

  func onActivate() {
    node.forEach(node.event(fromType: EventRow.self)) { event, row in
      switch event {
      case .removeTapped:
        // The parent's handling takes a while (a gate the test opens).
        if !gate.isEmpty { await Gates.named(gate).wait() }
        rows.removeAll { $0.id == row.id }
      case .renamed(let name):
        log.append(name)
      }
    }
  }
}

/// Work an intent's events cause in the tree: a parent's `forEach` over the events a row
/// sent. A settled call waits for it and names its commit; the journal's cause names the
/// event and its sender.
@Suite struct EventWorkTests {
  @Test func aSettledCallWaitsForTheParentsHandlingOfItsEvent() async throws {
    let gate = "event-work-\(UInt64.random(in: 0...UInt64.max))"
    let (list, anchor) = EventList(rows: [EventRow(name: "a"), EventRow(name: "b")], gate: gate).andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    async let settled = dispatcher.callWithDeadline("removeTapped", on: .path("/rows/0"), wait: .settled)
    // The handler waits at the gate: the settled call has not replied, the row is there.
    try await Task.sleep(for: .milliseconds(50))
    #expect(list.rows.count == 2)
    Gates.named(gate).open()
    let outcome = try await settled
    #expect(list.rows.map(\.name) == ["b"], "the removal happened before the settled reply")
    #expect(outcome.revision == anchor.revision, "and the reply names its revision")
    #expect(outcome.commitCount == 1)
  }

  @Test func aCommittedCallDoesNotWaitForTheHandling() async throws {
    let gate = "event-work-\(UInt64.random(in: 0...UInt64.max))"
    let (list, anchor) = EventList(rows: [EventRow(name: "a")], gate: gate).andAnchor()
    let outcome = try await IntentDispatcher(anchor).callWithDeadline("removeTapped", on: .path("/rows/0"))
    #expect(outcome.commits == nil, "the row's intent itself wrote nothing")
    #expect(list.rows.count == 1)
    Gates.named(gate).open()
    await expectEventually("the parent to remove the row") { list.rows.isEmpty }
  }

  @Test func theHandlersWritesCarryTheEventAndItsSenderAsTheirCause() async throws {
    let (list, anchor) = EventList(rows: [EventRow(name: "a"), EventRow(name: "b")]).andAnchor()
    let changes = DeadlineIterator(anchor.changeSets())
    let dispatcher = IntentDispatcher(anchor)
    _ = try await dispatcher.callWithDeadline("rename", on: .path("/rows/1"), parameters: ["to": "c"], wait: .settled)
    let own = try await changes.next("the rename's change set")
    #expect(own.cause == ChangeCause(intent: "rename", target: "/rows/1"))
    let handled = try await changes.next("the parent's log entry")
    #expect(handled.cause == ChangeCause(intent: "event:EventRow.Event.renamed", target: "/rows/1"))
    #expect(list.log == ["c"])
    // A write of nobody's intent still carries none.
    list.gate = "plain"
    let plain = try await changes.next("the plain write")
    #expect(plain.cause == nil)
  }
}
