import Arbor
import ArborTesting
import Testing

/// A model whose intents check their parameters before they change anything.
@Model struct Kettle {
  var celsius = 20
  var minutesLeft = 0

  @Intent func heat(to celsius: Int) throws {
    self.celsius = try InvalidParameter.require(celsius, in: 20...100, "to")
  }

  @Intent func delay(byHours hours: Int) throws {
    let (minutes, overflow) = hours.multipliedReportingOverflow(by: 60)
    guard !overflow else { throw InvalidParameter("byHours", "is too large to count in minutes") }
    minutesLeft = minutes
  }
}

/// ``InvalidParameter``: an intent's refusal of a parameter comes back as the dispatcher's
/// `invalidParameter`, naming the parameter and its range, and changes nothing.
@Suite struct InvalidParameterTests {
  @Test func aValueOutOfRangeIsAnInvalidParameterAndChangesNothing() async throws {
    let (kettle, anchor) = Kettle().andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    let refused = await #expect(throws: IntentError.self) {
      try await dispatcher.callWithDeadline("heat", parameters: ["to": 250])
    }
    #expect(refused == .invalidParameter(intent: "heat", parameter: "to", reason: "must be between 20 and 100, not 250"))
    #expect(refused?.description == "parameter 'to' of heat is invalid: must be between 20 and 100, not 250")
    #expect(kettle.celsius == 20)
    #expect(anchor.revision == 0)
    _ = try await dispatcher.callWithDeadline("heat", parameters: ["to": 90])
    #expect(kettle.celsius == 90)
  }

  @Test func anOverflowCheckedByTheIntentIsAnInvalidParameter() async throws {
    let (kettle, anchor) = Kettle().andAnchor()
    let dispatcher = IntentDispatcher(anchor)
    let refused = await #expect(throws: IntentError.self) {
      try await dispatcher.callWithDeadline("delay", parameters: ["byHours": .int(Int64.max)])
    }
    guard case .invalidParameter("delay", "byHours", _) = refused else {
      Issue.record("got \(String(describing: refused))")
      return
    }
    // The synchronous path answers the same.
    #expect(throws: IntentError.invalidParameter(intent: "delay", parameter: "byHours", reason: "is too large to count in minutes")) {
      try dispatcher.callSynchronously("delay", parameters: ["byHours": 153_722_867_280_912_931])
    }
    #expect(kettle.minutesLeft == 0)
    #expect(anchor.revision == 0)
  }
}
