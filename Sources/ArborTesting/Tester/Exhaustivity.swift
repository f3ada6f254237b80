/// What a ``ModelTester`` requires to be asserted by the end of a test: every state change
/// (`.state`), every event sent (`.events`), every task ended (`.tasks`), every call of
/// an installed ``TestProbe`` (`.probes`).
///
/// ```swift
/// let (model, tester) = AppModel().andTester(exhaustivity: [.state, .events])
/// tester.exhaustivity = .off   // check nothing left over
/// ```
public struct Exhaustivity: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Every state change must be read by a passing `assert`.
  public static let state = Exhaustivity(rawValue: 1 << 0)
  /// Every event sent with `node.send` must be matched by `didSend(_:)`.
  public static let events = Exhaustivity(rawValue: 1 << 1)
  /// Every task started with `node.task` or `node.forEach` (outside activation) must have
  /// ended or been cancelled.
  public static let tasks = Exhaustivity(rawValue: 1 << 2)
  /// Every call of an installed ``TestProbe`` must be matched by `wasCalled(with:)`.
  public static let probes = Exhaustivity(rawValue: 1 << 3)

  /// All four: the default.
  public static let full: Exhaustivity = [.state, .events, .tasks, .probes]
  /// None.
  public static let off: Exhaustivity = []
}
