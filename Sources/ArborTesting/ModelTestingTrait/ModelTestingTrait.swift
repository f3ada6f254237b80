import Foundation
import Testing

/// The `.modelTesting` trait: runs each test (of a suite, when on a suite) as a model
/// test. A plain `withAnchor()` in the test is a tested root; `expect`, `require`,
/// `settle` and `withExhaustivity` assert on it; what the test leaves unasserted (state,
/// events, tasks, probe calls, local, environment and preference values) fails it.
///
/// ```swift
/// @Test(.modelTesting) func addingACounter() async {
///   let model = AppModel().withAnchor { $0.factClient.fetch = { "\($0) is a good number." } }
///   model.addButtonTapped()
///   await expect(model.counters.count == 1)
/// }
/// ```
///
/// The settings of a suite and of its tests compose in order: an absolute set
/// (`exhaustivity:`) replaces what encloses it, `.adding(…)` and `.removing(…)` change it.
public struct ModelTestingTrait: TestTrait, SuiteTrait, TestScoping {
  enum Setting: Sendable {
    case exactly(Exhaustivity)
    case modified(ExhaustivityModifier)
  }

  let setting: Setting
  /// Tells this trait apart from the others of a test: the first provides the scope.
  private let id = UUID()

  /// Inherited by every test of a suite.
  public var isRecursive: Bool { true }

  public func scopeProvider(for test: Test, testCase: Test.Case?) -> ModelTestingTrait? {
    // One scope per test case, provided by the first of the test's model-testing traits
    // (a suite's come before the test's own).
    guard testCase != nil, !test.isSuite else { return nil }
    return Self.all(of: test).first?.id == id ? self : nil
  }

  public func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    let exhaustivity = Self.exhaustivity(of: test)
    let location = test.sourceLocation
    try await ModelTestingScope(exhaustivity: exhaustivity) { message in
      Issue.record(Comment(rawValue: message), sourceLocation: location)
    }.run(function)
  }

  /// The model-testing traits of a test, the enclosing suites' first.
  static func all(of test: Test) -> [ModelTestingTrait] {
    test.traits.compactMap { $0 as? ModelTestingTrait }
  }

  /// The exhaustivity of a test: its traits' settings applied in order to ``Exhaustivity/full``.
  package static func exhaustivity(of test: Test) -> Exhaustivity {
    all(of: test).reduce(Exhaustivity.full) { enclosing, trait in
      switch trait.setting {
      case .exactly(let categories): categories
      case .modified(let modifier): modifier.applied(to: enclosing)
      }
    }
  }
}

extension Trait where Self == ModelTestingTrait {
  /// Runs the test (or every test of the suite) as an exhaustive model test.
  ///
  /// ```swift
  /// @Test(.modelTesting) func addingACounter() async { … }
  /// ```
  public static var modelTesting: ModelTestingTrait { ModelTestingTrait(setting: .modified(.adding([]))) }

  /// Runs the test (or every test of the suite) as a model test that checks exactly
  /// `exhaustivity`.
  ///
  /// ```swift
  /// @Suite(.modelTesting(exhaustivity: [.state, .events])) struct StateAndEvents { … }
  /// @Test(.modelTesting(exhaustivity: .off)) func lenient() async { … }
  /// ```
  public static func modelTesting(exhaustivity: Exhaustivity) -> ModelTestingTrait {
    ModelTestingTrait(setting: .exactly(exhaustivity))
  }

  /// Runs the test (or every test of the suite) as a model test whose categories are the
  /// enclosing suite's (or all), changed by `modifier`.
  ///
  /// ```swift
  /// @Test(.modelTesting(.removing(.events))) func ignoresEvents() async { … }
  /// ```
  public static func modelTesting(_ modifier: ExhaustivityModifier) -> ModelTestingTrait {
    ModelTestingTrait(setting: .modified(modifier))
  }
}
