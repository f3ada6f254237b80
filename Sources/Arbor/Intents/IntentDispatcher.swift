import ArborJSON

/// Calls the `@Intent` methods of the models of one tree, by target, name and JSON
/// parameters: what a daemon does for `intent.call`.
///
/// ```swift
/// let (app, anchor) = AppModel().andAnchor()
/// let dispatcher = IntentDispatcher(anchor)
/// let outcome = try await dispatcher.call("incrementTapped", on: .path("/counters/0/counter"))
/// print(outcome.revision, outcome.result)
/// ```
public struct IntentDispatcher<Root: Model>: Sendable {
  /// What a call returned: the tree's revision once the intent returned, and its result.
  public struct Outcome: Sendable, Hashable {
    public var revision: UInt64
    public var result: JSONValue
  }

  let anchor: ModelAnchor<Root>

  public init(_ anchor: ModelAnchor<Root>) { self.anchor = anchor }

  /// Decodes the parameters, calls the intent and encodes its result. Errors are
  /// ``IntentError``s: unknown target or intent, a missing, unknown or mistyped parameter
  /// (named), the intent's own error.
  public func call(_ intent: String, on target: IntentTarget = .root, parameters: JSONValue = [:]) async throws -> Outcome {
    guard let model = try anchor.model.model(at: target) else { throw IntentError.unknownTarget(target.description) }
    let result = try await Self.call(intent, on: model, parameters: parameters)
    return Outcome(revision: anchor.revision, result: result)
  }

  static func call<M: Model>(_ intent: String, on model: M, parameters: JSONValue) async throws -> JSONValue {
    let intents = M._$intents
    guard let descriptor = intents.first(where: { $0.name == intent }) else {
      throw IntentError.unknownIntent(intent: intent, modelType: M._$typeName, available: intents.map(\.name))
    }
    guard case .object(let values) = parameters else {
      throw IntentError.parametersNotAnObject(intent: intent, found: parameters.typeName)
    }
    let accepted = descriptor.parameters.map(\.key)
    if let unknown = values.keys.sorted().first(where: { !accepted.contains($0) }) {
      throw IntentError.unknownParameter(intent: intent, parameter: unknown, accepted: accepted)
    }
    do {
      return try await descriptor.call(model, _IntentArguments(intent: intent, values: values))
    } catch let error as IntentError {
      throw error
    } catch {
      throw IntentError.failed(intent: intent, errorType: String(describing: type(of: error)), message: "\(error)")
    }
  }
}

extension Model {
  /// The names of the model type's intents, in declaration order.
  ///
  /// ```swift
  /// CounterModel.intentNames   // ["incrementTapped", "decrementTapped", "factButtonTapped"]
  /// ```
  public static var intentNames: [String] { _$intents.map(\.name) }
}
