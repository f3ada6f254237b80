extension JSONSchema {
  /// The values an `enum` allows at `tokens` (a JSON Pointer's tokens) inside the JSON this
  /// schema describes, or nil when the schema there lists none. It follows `$ref`s into
  /// `definitions`, `anyOf`, `oneOf` and `allOf` alternatives, object `properties` and
  /// `additionalProperties`, and array `items`.
  ///
  /// ```swift
  /// enum Mode: String, Codable, CaseIterable { case off, heat, cool }
  /// struct Plan: Codable { var modes: [Mode] }
  /// var definitions = JSONSchemaDefinitions()
  /// let plan = definitions.schema(for: Plan.self)
  /// plan.allowedValues(at: ["modes", "0"], definitions: definitions.definitions)   // ["off", "heat", "cool"]
  /// ```
  public func allowedValues(at tokens: [String], definitions: [String: JSONSchema]) -> [JSONValue]? {
    allowedValues(at: tokens[...], definitions: definitions, depth: 0)
  }

  private func allowedValues(at tokens: ArraySlice<String>, definitions: [String: JSONSchema], depth: Int) -> [JSONValue]? {
    guard depth < 32, case .object(let object) = value else { return nil }
    if let name = referencedName {
      return definitions[name]?.allowedValues(at: tokens, definitions: definitions, depth: depth + 1)
    }
    for key in ["anyOf", "oneOf", "allOf"] {
      guard case .array(let options)? = object[key] else { continue }
      for option in options {
        if let values = JSONSchema(option).allowedValues(at: tokens, definitions: definitions, depth: depth + 1) {
          return values
        }
      }
    }
    guard let token = tokens.first else {
      guard case .array(let values)? = object["enum"] else { return nil }
      return values
    }
    let rest = tokens.dropFirst()
    if case .object(let properties)? = object["properties"], let property = properties[token] {
      return JSONSchema(property).allowedValues(at: rest, definitions: definitions, depth: depth + 1)
    }
    if let items = object["items"], Int(token) != nil {
      return JSONSchema(items).allowedValues(at: rest, definitions: definitions, depth: depth + 1)
    }
    if case .object? = object["additionalProperties"], let values = object["additionalProperties"] {
      return JSONSchema(values).allowedValues(at: rest, definitions: definitions, depth: depth + 1)
    }
    return nil
  }
}
