import ArborLocking

/// A stand-in for a callback: pass `probe.call` where a model takes a closure, then check
/// its calls with `wasCalled(with:)` inside `tester.assert { … }`.
///
/// ```swift
/// let onFact = TestProbe()
/// let (model, tester) = FactModel(count: 2, onFact: onFact.call).andTester()
/// tester.install(onFact)
/// model.factButtonTapped()
/// await tester.assert { onFact.wasCalled(with: 2, "2 is a good number.") }
/// ```
///
/// `call` fits a closure of any parameters returning `Void`, `async` or not:
/// `@Sendable () -> Void`, `@Sendable (Int, String) -> Void`, `@Sendable (String) async -> Void`.
public final class TestProbe: Sendable {
  private struct Call {
    let arguments: [any Sendable]
    var consumed = false
  }

  /// A name for messages, such as `onFact`.
  public let name: String
  private let calls = LockedState<[Call]>([])

  /// A probe; inside a `.modelTesting` test it joins the test's `.probes` check at once.
  public init(_ name: String = "probe") {
    self.name = name
    ModelTestingScope.current?.ledger.install(self)
  }

  // `call` has one overload per number of arguments (none to six) rather than one over a
  // parameter pack: Swift 6.3 crashes converting a pack-generic method to a function type.

  /// Records a call; pass `probe.call` where a model takes a closure of no parameters.
  public func call() { record([]) }

  /// Records a call with its 1 argument.
  public func call<A: Sendable>(_ a: A) { record([a]) }

  /// Records a call with its 2 arguments.
  public func call<A: Sendable, B: Sendable>(_ a: A, _ b: B) { record([a, b]) }

  /// Records a call with its 3 arguments.
  public func call<A: Sendable, B: Sendable, C: Sendable>(_ a: A, _ b: B, _ c: C) { record([a, b, c]) }

  /// Records a call with its 4 arguments.
  public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable>(_ a: A, _ b: B, _ c: C, _ d: D) { record([a, b, c, d]) }

  /// Records a call with its 5 arguments.
  public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E) { record([a, b, c, d, e]) }

  /// Records a call with its 6 arguments.
  public func call<A: Sendable, B: Sendable, C: Sendable, D: Sendable, E: Sendable, F: Sendable>(_ a: A, _ b: B, _ c: C, _ d: D, _ e: E, _ f: F) { record([a, b, c, d, e, f]) }

  /// Records a call, like `call`: `probe(2, "two")`.
  public func callAsFunction<each Argument: Sendable>(_ arguments: repeat each Argument) {
    var values: [any Sendable] = []
    for argument in repeat each arguments { values.append(argument) }
    record(values)
  }

  private func record(_ arguments: [any Sendable]) {
    calls.withLock { $0.append(Call(arguments: arguments)) }
  }

  /// How many times the probe was called.
  public var callCount: Int { calls.withLock { $0.count } }

  /// Inside `tester.assert { … }`: holds once the probe was called with these arguments,
  /// by a call not consumed before. A passing assertion consumes the call.
  public func wasCalled<each Argument: Equatable>(with expected: repeat each Argument) -> AssertionPredicate {
    var matchers: [(any Sendable) -> Bool] = []
    var shown: [String] = []
    for value in repeat each expected {
      matchers.append { Self.equal(value, $0) }
      shown.append(String(reflecting: value))
    }
    let scope = AssertionScope.current
    let index: Int? = calls.withLock { calls in
      calls.indices.first { index in
        let call = calls[index]
        guard !call.consumed, call.arguments.count == matchers.count, scope?.isClaimed(probe: self, index: index) != true else { return false }
        return zip(matchers, call.arguments).allSatisfy { matcher, argument in matcher(argument) }
      }
    }
    if let index { scope?.claim(.init(probe: self, index: index)) }
    let made = unconsumedCalls.map { "(\($0))" }.joined(separator: ", ")
    return AssertionPredicate(
      passed: index != nil,
      failure: "\(name) was not called with (\(shown.joined(separator: ", "))); its calls not yet asserted: \(made.isEmpty ? "none" : made)")
  }

  /// Marks a call as asserted.
  func consume(_ index: Int) {
    calls.withLock { if $0.indices.contains(index) { $0[index].consumed = true } }
  }

  /// Marks every call from the `start`th on as asserted (a scope that does not check probes).
  func consumeCalls(from start: Int) {
    calls.withLock { calls in
      for index in calls.indices where index >= start { calls[index].consumed = true }
    }
  }

  /// The calls no assertion consumed, as text.
  package var unconsumedCalls: [String] {
    calls.withLock { calls in
      calls.filter { !$0.consumed }.map { $0.arguments.map { String(reflecting: $0) }.joined(separator: ", ") }
    }
  }

  private static func equal<Value: Equatable>(_ expected: Value, _ argument: any Sendable) -> Bool {
    (argument as? Value) == expected
  }
}
