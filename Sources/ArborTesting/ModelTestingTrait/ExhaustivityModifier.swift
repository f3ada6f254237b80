/// A change to an enclosing exhaustivity: categories added or removed. Written
/// `.adding(…)` or `.removing(…)` in a `.modelTesting` trait, it composes with the
/// suite's setting (or with ``Exhaustivity/full`` when there is none).
///
/// ```swift
/// @Suite(.modelTesting(.removing(.events)))
/// struct QuietTests {
///   @Test(.modelTesting(.adding(.events))) func eventsCountHere() async { … }
/// }
/// ```
public struct ExhaustivityModifier: Sendable, Hashable {
  let added: Exhaustivity
  let removed: Exhaustivity

  /// Adds `categories` to the enclosing set.
  public static func adding(_ categories: Exhaustivity) -> ExhaustivityModifier {
    ExhaustivityModifier(added: categories, removed: [])
  }

  /// Removes `categories` from the enclosing set.
  public static func removing(_ categories: Exhaustivity) -> ExhaustivityModifier {
    ExhaustivityModifier(added: [], removed: categories)
  }

  /// The enclosing set, modified.
  func applied(to enclosing: Exhaustivity) -> Exhaustivity {
    enclosing.union(added).subtracting(removed)
  }
}
