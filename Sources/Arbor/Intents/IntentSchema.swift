import ArborJSON

/// The JSON Schemas of one intent: its parameters (an object keyed by argument label) and
/// its result.
///
/// ```swift
/// var definitions = JSONSchemaDefinitions()
/// for intent in CounterModel.intentSchemas(in: &definitions) { print(intent.name, intent.parameters) }
/// ```
public struct IntentSchema: Sendable, Hashable {
  public var name: String
  public var parameters: JSONSchema
  public var result: JSONSchema
}

extension Model {
  /// The schemas of every intent of this model type; named types go to `definitions`.
  public static func intentSchemas(in definitions: inout JSONSchemaDefinitions) -> [IntentSchema] {
    _$intents.map { descriptor in
      let properties = descriptor.parameters.map { ($0.key, $0.type.schema(in: &definitions)) }
      let required = descriptor.parameters.filter { !$0.hasDefault }.map(\.key)
      return IntentSchema(
        name: descriptor.name,
        parameters: .object(properties: properties, required: required, additionalProperties: false),
        result: descriptor.result.type?.schema(in: &definitions) ?? .null)
    }
  }
}
