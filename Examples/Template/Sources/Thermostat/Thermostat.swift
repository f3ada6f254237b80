import Arbor

/// A room's thermostat: the temperature it holds the room at, its mode, and the intents
/// that change them. `thermostatd` hosts it as the root of its tree.
///
/// ```swift
/// let (thermostat, anchor) = Thermostat().andAnchor()
/// try thermostat.setSetpoint(to: 21.5)
/// print(thermostat.setpoint, anchor.revision)   // 21.5 1
/// ```
@Model public struct Thermostat {
  /// What the thermostat tells whoever listens (`arborctl events`).
  public enum Event: Sendable, Equatable, Codable {
    /// The setpoint moved from one temperature to another, in degrees Celsius.
    case setpointChanged(from: Double, to: Double)
  }

  /// The setpoints the thermostat accepts, in degrees Celsius.
  public static let acceptedSetpoints: ClosedRange<Double> = 5...30

  /// The temperature the thermostat holds the room at, in degrees Celsius.
  public var setpoint: Double = 20

  /// What the thermostat does to hold the setpoint. Over the socket a mode is its raw
  /// value: being `CaseIterable`, it is described as
  /// `{"type": "string", "enum": ["off", "heat", "cool"]}` in `arborctl schema`.
  public enum Mode: String, Sendable, Codable, CaseIterable {
    case off, heat, cool
  }

  /// What the thermostat does now.
  public var mode: Mode = .heat

  /// A thermostat that holds the room at `setpoint` degrees Celsius.
  public init(setpoint: Double = 20) {
    self.setpoint = setpoint
  }

  /// Sets the setpoint to `celsius` and sends ``Event/setpointChanged(from:to:)``; setting
  /// the setpoint it already has changes nothing and sends nothing. A temperature outside
  /// ``acceptedSetpoints`` is refused with an `InvalidParameter` naming `to` and the range
  /// (over the socket: `org.arbor.InvalidParameter`, 1003), and changes nothing.
  ///
  /// Over the socket: `arborctl call / setSetpoint to=21.5`.
  @Intent public func setSetpoint(to celsius: Double) throws {
    // A parameter is checked before anything changes, and refused with InvalidParameter:
    // the client's mistake, answered as such. Arithmetic on a parameter is checked too (an
    // overflow traps, and a trap stops the whole daemon).
    try InvalidParameter.require(celsius, in: Self.acceptedSetpoints, "to")
    // Read and write in one transaction, so that two clients setting it at once each
    // report the value they replaced.
    let previous = node.transaction {
      let previous = setpoint
      setpoint = celsius
      return previous
    }
    if previous != celsius {
      node.send(.setpointChanged(from: previous, to: celsius))
    }
  }

  /// Sets the mode. Over the socket: `arborctl call / setMode to=cool`; a value that is
  /// not a mode (`to=fan`) is refused with the modes there are, and changes nothing.
  @Intent public func setMode(to mode: Mode) {
    self.mode = mode
  }
}
