/// The error of ``Thermostat/setSetpoint(to:)`` for a temperature the thermostat does not
/// accept. Over the socket it is the reply's `org.arbor.IntentFailed` error, with this
/// description as its `error`.
public struct SetpointOutOfRange: Error, Equatable, CustomStringConvertible {
  /// The temperature that was asked for, in degrees Celsius.
  public let requested: Double
  /// The temperatures the thermostat accepts, in degrees Celsius.
  public let accepted: ClosedRange<Double>

  /// An error for `requested`, outside `accepted`.
  public init(requested: Double, accepted: ClosedRange<Double>) {
    self.requested = requested
    self.accepted = accepted
  }

  public var description: String {
    "a setpoint of \(requested) °C is outside \(accepted.lowerBound)…\(accepted.upperBound) °C"
  }
}
