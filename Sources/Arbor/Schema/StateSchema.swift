import ArborJSON

/// The names generated code uses for schema types, so that a file importing only `Arbor`
/// compiles.
public typealias _JSONSchema = JSONSchema
public typealias _JSONSchemaDefinitions = JSONSchemaDefinitions
public typealias _JSONSchemaDescribing = JSONSchemaDescribing

/// Builds the JSON Schema of one model's state. Generated `_$stateSchema(in:)` methods call
/// it; as for encoding, the overload chosen for each property decides whether it is state.
public struct _StateSchema {
  @usableFromInline var properties: [(String, JSONSchema)] = []
  @usableFromInline var required: [String] = []

  public init() {}

  /// The model's `id`: 16 hexadecimal digits.
  public mutating func addID() {
    properties.append(("id", JSONSchema(["type": "string", "pattern": "^[0-9a-f]{16}$"])))
    required.append("id")
  }

  /// A `Codable` tracked property; required unless it has a default.
  @inlinable
  public mutating func add<S, T: Codable>(_ name: String, _ field: KeyPath<S, T?>, hasDefault: Bool, in definitions: inout JSONSchemaDefinitions) {
    properties.append((name, definitions.schema(for: T.self)))
    if !hasDefault { required.append(name) }
  }

  /// A property that is not `Codable` is not state.
  @inlinable
  public mutating func add<S, T>(_ name: String, _ field: KeyPath<S, T?>, hasDefault: Bool, in definitions: inout JSONSchemaDefinitions) {}

  /// A `Codable` `let`: required.
  @inlinable
  public mutating func add<T: Codable>(_ name: String, _ type: T.Type, in definitions: inout JSONSchemaDefinitions) {
    properties.append((name, definitions.schema(for: T.self)))
    required.append(name)
  }

  /// A `let` that is not `Codable` is not state.
  @inlinable
  public mutating func add<T>(_ name: String, _ type: T.Type, in definitions: inout JSONSchemaDefinitions) {}

  /// The object schema. Properties that are not declared are refused.
  public func build() -> JSONSchema {
    .object(properties: properties, required: required, additionalProperties: false)
  }
}

extension Model {
  /// The JSON Schema of the model's state, as a named definition (`#/$defs/<type name>`).
  ///
  /// ```swift
  /// var definitions = JSONSchemaDefinitions()
  /// let reference = CounterModel.jsonSchema(in: &definitions)   // {"$ref": "#/$defs/CounterModel"}
  /// ```
  public static func jsonSchema(in definitions: inout JSONSchemaDefinitions) -> JSONSchema {
    ModelTypeCollector.current?.add(Self.self)
    return definitions.define(schemaName) { _$stateSchema(in: &$0) }
  }

  /// The name of the model's definition in a schema document: its type name, with generic
  /// arguments spelled out (`Box_Int_`).
  static var schemaName: String {
    let name = String(describing: Self.self)
    return String(name.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." || $0 == "-" ? $0 : "_" })
  }

  /// The JSON Schema document (draft 2020-12) of a tree with this model at its root.
  ///
  /// ```swift
  /// let schema = AppModel.stateSchema   // {"$schema": …, "$ref": "#/$defs/AppModel", "$defs": {…}}
  /// ```
  public static var stateSchema: JSONSchema {
    var definitions = JSONSchemaDefinitions()
    let root = definitions.schema(for: Self.self)
    return definitions.document(root: root, title: _$typeName)
  }
}
