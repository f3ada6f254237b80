import Arbor
import ArborClient
import ArborDaemonTesting
import Testing
import Thermostat

/// The same thermostat hosted by a daemon in the test's process (`withDaemonTester`):
/// intents go over its Unix socket as a client's would, and the state changes and events
/// are checked as they come back through it, exhaustively.
@Suite struct ThermostatDaemonTests {
  @Test func settingTheSetpointThroughTheSocket() async throws {
    try await withDaemonTester(Thermostat()) { thermostat, tester in
      try await tester.call("/", "setSetpoint", ["to": 21.5])
      await tester.assert {
        thermostat.setpoint == 21.5
        thermostat.didSend(.setpointChanged(from: 20, to: 21.5))
      }
    }
  }

  @Test func theDaemonRefusesASetpointOutsideTheRange() async throws {
    try await withDaemonTester(Thermostat()) { thermostat, tester in
      let error = await #expect(throws: ArborClientError.self) {
        try await tester.call("/", "setSetpoint", ["to": 45])
      }
      #expect(error?.is(.invalidParameter) == true)
      #expect(error?.description.contains("'to'") == true, "\(String(describing: error))")
      #expect(error?.description.contains("between 5.0 and 30.0") == true, "\(String(describing: error))")
      // The marker: the refused call changed nothing and sent nothing before it.
      try await tester.call("/", "setSetpoint", ["to": 5])
      await tester.assert {
        thermostat.setpoint == 5
        thermostat.didSend(.setpointChanged(from: 20, to: 5))
      }
    }
  }

  @Test func theDaemonRefusesAModeThatIsNotOneAndListsThem() async throws {
    try await withDaemonTester(Thermostat()) { thermostat, tester in
      let error = await #expect(throws: ArborClientError.self) {
        try await tester.call("/", "setMode", ["to": "fan"])
      }
      #expect(error?.is(.invalidParameter) == true)
      #expect(error?.description.contains(#""fan" is not one of "off", "heat", "cool""#) == true, "\(String(describing: error))")
      // The marker: the refused call changed nothing before it.
      try await tester.call("/", "setMode", ["to": "cool"])
      await tester.assert {
        thermostat.mode == .cool
      }
    }
  }
}
