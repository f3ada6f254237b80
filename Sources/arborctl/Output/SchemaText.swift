import ArborJSON

/// JSON Schemas in a few words, for people: `string`, `integer ≥ 0`, `[string]`,
/// `CounterModel`, `"committed" | "settled"`.
///
/// ```swift
/// SchemaText.describe(["type": "array", "items": ["type": "string"]])   // "[string]"
/// ```
enum SchemaText {
  static func describe(_ schema: JSONValue) -> String {
    if let reference = schema["$ref"]?.stringValue { return String(reference.split(separator: "/").last ?? "") }
    if let choices = (schema["anyOf"] ?? schema["oneOf"])?.arrayValue {
      let described = choices.map(describe)
      // An optional: `T | null` reads as `T?`.
      if described.count == 2, let other = described.first(where: { $0 != "null" }), described.contains("null") { return other + "?" }
      return described.joined(separator: " | ")
    }
    if let values = schema["enum"]?.arrayValue { return values.map(\.jsonString).joined(separator: " | ") }
    if let constant = schema["const"] { return constant.jsonString }
    if let types = schema["type"]?.arrayValue {
      let names = types.compactMap(\.stringValue)
      if names.count == 2, names.contains("null"), let other = names.first(where: { $0 != "null" }) { return describe(schema.replacingType(with: other)) + "?" }
      return names.joined(separator: " | ")
    }
    guard let type = schema["type"]?.stringValue else { return schema == .object([:]) ? "any" : "any" }
    switch type {
    case "array": return "[" + describe(schema["items"] ?? [:]) + "]"
    case "object":
      if let values = schema["additionalProperties"], values.boolValue == nil { return "[string: " + describe(values) + "]" }
      if let properties = schema["properties"]?.objectValue, !properties.isEmpty {
        return "{" + properties.keys.sorted().map { "\($0): \(describe(properties[$0]!))" }.joined(separator: ", ") + "}"
      }
      return "object"
    case "integer", "number":
      if let minimum = schema["minimum"]?.jsonString { return "\(type) ≥ \(minimum)" }
      return type
    case "string":
      if let pattern = schema["pattern"]?.stringValue { return "string matching \(pattern)" }
      return "string"
    default: return type
    }
  }

  /// What a value must be, for "… must be X": `string`, `integer ≥ 0`, or
  /// `one of "off", "heat", "cool"` for an enum; nil when the schema accepts anything.
  ///
  /// ```swift
  /// SchemaText.requirement(["type": "string", "enum": ["off", "heat"]])   // "one of \"off\", \"heat\""
  /// ```
  static func requirement(_ schema: JSONValue) -> String? {
    if let values = schema["enum"]?.arrayValue, !values.isEmpty {
      return "one of " + values.map(\.jsonString).joined(separator: ", ")
    }
    let described = describe(schema)
    return described == "any" ? nil : described
  }

  /// The parameters of an intent's params schema: name, description, whether required.
  static func parameters(_ schema: JSONValue) -> [(name: String, type: String, required: Bool)] {
    let required = Set((schema["required"]?.arrayValue ?? []).compactMap(\.stringValue))
    let properties = schema["properties"]?.objectValue ?? [:]
    return properties.keys.sorted().map { ($0, describe(properties[$0]!), required.contains($0)) }
  }

  /// `name(id: string, count: integer?)`.
  static func signature(_ name: String, params: JSONValue) -> String {
    let parameters = Self.parameters(params).map { "\($0.name): \($0.type)\($0.required ? "" : " (optional)")" }
    return "\(name)(\(parameters.joined(separator: ", ")))"
  }
}

extension JSONValue {
  /// The schema with its `type` replaced.
  fileprivate func replacingType(with type: String) -> JSONValue {
    guard case .object(var members) = self else { return self }
    members["type"] = .string(type)
    return .object(members)
  }
}
