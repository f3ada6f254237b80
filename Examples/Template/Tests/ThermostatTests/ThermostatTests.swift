import Arbor
import ArborTesting
import Testing
import Thermostat

/// The thermostat in process, tested as the SwiftModel guide tests models: `andTester`,
/// then `tester.assert`. The tester is exhaustive: a state change or an event the test
/// does not assert fails it at its end. A `@MainActor` suite, as tests of apps often are.
@MainActor @Suite struct ThermostatTests {
  @Test func settingTheSetpointChangesItAndSaysSo() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    try thermostat.setSetpoint(to: 21.5)
    await tester.assert {
      thermostat.setpoint == 21.5
      thermostat.didSend(.setpointChanged(from: 20, to: 21.5))
    }
  }

  @Test func theSetpointItAlreadyHasChangesNothing() async throws {
    let (thermostat, tester) = Thermostat(setpoint: 18).andTester()
    try thermostat.setSetpoint(to: 18)
    // A later change is the marker: had the first call changed or sent anything, it would
    // be left unasserted before this one, and the tester would fail the test.
    try thermostat.setSetpoint(to: 19)
    await tester.assert {
      thermostat.setpoint == 19
      thermostat.didSend(.setpointChanged(from: 18, to: 19))
    }
  }

  @Test func aSetpointOutsideTheRangeIsRefusedAndChangesNothing() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    #expect(throws: InvalidParameter("to", "must be between 5.0 and 30.0, not 45.0")) {
      try thermostat.setSetpoint(to: 45)
    }
    #expect(throws: InvalidParameter.self) { try thermostat.setSetpoint(to: .nan) }
    #expect(thermostat.setpoint == 20)
    try thermostat.setSetpoint(to: 30)
    await tester.assert {
      thermostat.setpoint == 30
      thermostat.didSend(.setpointChanged(from: 20, to: 30))
    }
  }

  @Test func theModeChangesToTheOneAskedFor() async throws {
    let (thermostat, tester) = Thermostat().andTester()
    thermostat.setMode(to: .cool)
    await tester.assert {
      thermostat.mode == .cool
    }
  }
}
