/// What a test must account for by its end: every state change (`.state`), every event
/// sent (`.events`), every task ended (`.tasks`), every call of a ``TestProbe``
/// (`.probes`), every write to models' local, environment and preference storage
/// (`.local`, `.environment`, `.preference`).
///
/// ```swift
/// let (model, tester) = AppModel().andTester(exhaustivity: [.state, .events])
/// @Test(.modelTesting(exhaustivity: .full.removing(.tasks))) func quick() async { … }
/// ```
public struct Exhaustivity: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// Every state change must be read by a passing `assert`/`expect`.
  public static let state = Exhaustivity(rawValue: 1 << 0)
  /// Every event sent with `node.send` must be matched by `didSend(_:)`.
  public static let events = Exhaustivity(rawValue: 1 << 1)
  /// Every task started with `node.task` or `node.forEach` (outside activation) must have
  /// ended or been cancelled.
  public static let tasks = Exhaustivity(rawValue: 1 << 2)
  /// Every call of a ``TestProbe`` must be matched by `wasCalled(with:)`.
  public static let probes = Exhaustivity(rawValue: 1 << 3)
  /// Every write to a model's `node.local` values (and local `node.context` keys) must be
  /// read by a passing `assert`/`expect`.
  public static let local = Exhaustivity(rawValue: 1 << 4)
  /// Every write to a model's `node.environment` values (and environment `node.context`
  /// keys) must be read by a passing `assert`/`expect`.
  public static let environment = Exhaustivity(rawValue: 1 << 5)
  /// Every write to a model's `node.preference` contributions must be read (through the
  /// model or an ancestor) by a passing `assert`/`expect`.
  public static let preference = Exhaustivity(rawValue: 1 << 6)

  /// Opt-in: consecutive `expect` blocks must match the recorded writes in order. Each
  /// block is evaluated as of each recorded write in turn, from the one the previous block
  /// matched; a block that holds only after a property it reads changed more than once
  /// fails, naming the values it skipped. Not part of ``full``.
  ///
  /// ```swift
  /// @Test(.modelTesting(.adding(.transitions))) func loading() async {
  ///   model.load()
  ///   await expect(model.isLoading == true)
  ///   await expect { model.isLoading == false; model.title == "loaded" }
  /// }
  /// ```
  public static let transitions = Exhaustivity(rawValue: 1 << 7)

  /// Everything but ``transitions``: the default.
  public static let full: Exhaustivity = [.state, .events, .tasks, .probes, .local, .environment, .preference]
  /// Nothing.
  public static let off: Exhaustivity = []

  /// These categories and `categories`.
  ///
  /// ```swift
  /// settle(resetting: .state.adding(.events))
  /// ```
  public func adding(_ categories: Exhaustivity) -> Exhaustivity { union(categories) }

  /// These categories without `categories`.
  ///
  /// ```swift
  /// settle(resetting: .full.removing(.events))
  /// ```
  public func removing(_ categories: Exhaustivity) -> Exhaustivity { subtracting(categories) }
}
