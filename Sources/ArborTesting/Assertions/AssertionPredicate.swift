import CustomDump

/// One line of a `tester.assert { … }` block: whether it holds, and what to say when it
/// does not.
public struct AssertionPredicate: Sendable {
  /// Whether the predicate holds.
  public let passed: Bool
  /// What the failure message says (a diff for `==`).
  public let failure: String

  public init(passed: Bool, failure: String) {
    self.passed = passed
    self.failure = failure
  }
}

/// `lhs == rhs` inside a `tester.assert { … }` block: kept as both sides, so that a failure
/// shows a diff (swift-custom-dump).
///
/// Swift takes it for `==` between values of your own `Equatable` types, arrays,
/// dictionaries, sets and optionals; it keeps its own `==` for numbers, strings and other
/// standard types, whose failures show the values the block read instead.
public struct EqualityAssertion<Value: Equatable> {
  let lhs: Value
  let rhs: Value

  var predicate: AssertionPredicate {
    if lhs == rhs { return AssertionPredicate(passed: true, failure: "") }
    let difference = diff(lhs, rhs) ?? "\(String(customDumping: lhs))\n≠\n\(String(customDumping: rhs))"
    let indented = difference.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }.joined(separator: "\n")
    return AssertionPredicate(passed: false, failure: "not equal (− left side, + right side):\n\(indented)")
  }
}

/// `==` for ``AssertionBuilder``: see ``EqualityAssertion``. Outside an assertion block,
/// where a `Bool` is needed, Swift's own `==` is taken.
public func == <Value: Equatable>(lhs: Value, rhs: Value) -> EqualityAssertion<Value> {
  EqualityAssertion(lhs: lhs, rhs: rhs)
}

/// The predicates of a `tester.assert { … }` block: `Bool` expressions,
/// `==` comparisons (a diff when they fail), `model.didSend(event)` and
/// `probe.wasCalled(with:)`. A predicate that does not hold is reported with the value of
/// every model property the block read.
///
/// ```swift
/// await tester.assert {
///   model.count == 42
///   model.title.hasPrefix("A")
///   model.didSend(.startMeeting)
/// }
/// ```
@resultBuilder
public enum AssertionBuilder {
  public static func buildExpression<Value: Equatable>(_ comparison: EqualityAssertion<Value>) -> [AssertionPredicate] {
    [comparison.predicate]
  }

  @_disfavoredOverload
  public static func buildExpression(_ condition: Bool) -> [AssertionPredicate] {
    [AssertionPredicate(passed: condition, failure: "the expression is false")]
  }

  public static func buildExpression(_ predicate: AssertionPredicate) -> [AssertionPredicate] { [predicate] }

  public static func buildBlock(_ parts: [AssertionPredicate]...) -> [AssertionPredicate] { parts.flatMap { $0 } }
  public static func buildOptional(_ part: [AssertionPredicate]?) -> [AssertionPredicate] { part ?? [] }
  public static func buildEither(first part: [AssertionPredicate]) -> [AssertionPredicate] { part }
  public static func buildEither(second part: [AssertionPredicate]) -> [AssertionPredicate] { part }
  public static func buildArray(_ parts: [[AssertionPredicate]]) -> [AssertionPredicate] { parts.flatMap { $0 } }
}
