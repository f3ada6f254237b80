/// An intent's refusal of a parameter it was given: out of its range, or otherwise not one
/// it can act on. The dispatcher reports it as ``IntentError/invalidParameter(intent:parameter:reason:)``,
/// which a daemon answers with `org.arbor.InvalidParameter` (1003) and the parameter's name:
/// the client's mistake, not the intent's failure.
///
/// Check a parameter before using it, and before changing anything, so that the refusal
/// changes nothing. A trap in an intent (an overflow, a conversion out of range) stops the
/// whole daemon: arithmetic on parameters is checked, and a value out of range thrown as
/// this error.
///
/// ```swift
/// @Intent func snooze(minutes: Int) throws {
///   let minutes = try InvalidParameter.require(minutes, in: 1...1_440, "minutes")
///   due = due.addingTimeInterval(Double(minutes) * 60)
/// }
/// ```
public struct InvalidParameter: Error, Sendable, Hashable, CustomStringConvertible {
  /// The parameter's name, as the intent's label has it.
  public var parameter: String
  /// What is wrong with it, and what it accepts.
  public var reason: String

  /// A refusal of `parameter`, saying why in `reason` (`"must be 1 to 1440 minutes"`).
  ///
  /// ```swift
  /// throw InvalidParameter("title", "must not be empty")
  /// ```
  public init(_ parameter: String, _ reason: String) {
    self.parameter = parameter
    self.reason = reason
  }

  /// `value` when `range` holds it; else an ``InvalidParameter`` naming `parameter`,
  /// the range and the value.
  ///
  /// ```swift
  /// let count = try InvalidParameter.require(count, in: 0...1_000, "count")
  /// ```
  @discardableResult
  public static func require<Value: Comparable>(_ value: Value, in range: ClosedRange<Value>, _ parameter: String) throws(InvalidParameter)
    -> Value
  {
    guard range.contains(value) else {
      throw InvalidParameter(parameter, "must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
    }
    return value
  }

  public var description: String { "parameter '\(parameter)' is invalid: \(reason)" }
}
