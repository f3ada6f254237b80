import ArborJSON

/// The schema of an enum in the layout of Swift's synthesized `Codable`: one object per
/// case, with the case name as its only key and the associated values (by label, or `_0`,
/// `_1`, … by position) inside. Generated code calls it.
public func _enumSchema(_ cases: [(name: String, values: [(key: String, schema: JSONSchema, optional: Bool)])]) -> JSONSchema {
  .oneOf(
    cases.map { enumCase in
      let values = JSONSchema.object(
        properties: enumCase.values.map { ($0.key, $0.optional ? JSONSchema.nullable($0.schema) : $0.schema) },
        required: enumCase.values.filter { !$0.optional }.map(\.key),
        additionalProperties: false)
      return .object(properties: [(enumCase.name, values)], required: [enumCase.name], additionalProperties: false)
    })
}

/// The schema of a model's events: only `Codable` events leave the process.
public func _eventSchema<E: Codable>(_ type: E.Type, _ schema: @autoclosure () -> JSONSchema) -> JSONSchema? { schema() }

/// Events that are not `Codable` stay inside the process and have no schema.
public func _eventSchema<E>(_ type: E.Type, _ schema: @autoclosure () -> JSONSchema) -> JSONSchema? { nil }

extension Model {
  /// The JSON Schema document of the model's events, or nil when they are not `Codable`
  /// (such events are not exported).
  ///
  /// ```swift
  /// CounterModel.eventSchema   // {"oneOf": [{"properties": {"factLoaded": …}}]}
  /// ```
  public static var eventSchema: JSONSchema? {
    var definitions = JSONSchemaDefinitions()
    guard let root = _$eventSchema(in: &definitions) else { return nil }
    return definitions.document(root: root, title: _$typeName + ".Event")
  }
}
