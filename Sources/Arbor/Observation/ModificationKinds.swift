/// Which modifications ``Model/observeModifications(scope:kinds:where:)`` reports.
///
/// ```swift
/// node.forEach(observeModifications(kinds: [.properties, .parentRelationship])) { _ in
///   hasUnsavedChanges = true
/// }
/// ```
///
/// Writes to a model's local storage (`node.local`, and ``ContextKeys`` keys that do not
/// propagate) are none of these kinds: they never trigger `observeModifications`.
public struct ModificationKinds: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// A write of a tracked property of the model (`count = 1`, `items.append(…)`).
  public static let properties = ModificationKinds(rawValue: 1 << 0)
  /// A write of one of the model's own environment values (`node.environment.theme = …`,
  /// environment `node.context` keys). A descendant that inherits the value is not
  /// modified by it.
  public static let environment = ModificationKinds(rawValue: 1 << 1)
  /// A write of the model's own preference contribution (`node.preference.total = …`).
  public static let preferences = ModificationKinds(rawValue: 1 << 2)
  /// The model gained or lost a parent: it was added to the tree, removed from it, or
  /// became shared by another place or stopped being shared. A move to another index of
  /// the same parent is not a parent change.
  public static let parentRelationship = ModificationKinds(rawValue: 1 << 3)

  /// Every kind (the default).
  public static let all: ModificationKinds = [.properties, .environment, .preferences, .parentRelationship]
}
