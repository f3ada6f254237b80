import ArborJSON

/// Finds the model type at a path by walking the state's JSON Schema (`rpc.discover`'s
/// `components.schemas.State`): properties, array items, dictionary values, optionals and
/// `@ModelContainer` cases, following `$ref`s into `$defs`, whose names are the model types.
///
/// ```swift
/// try ModelTypeLookup(document: discovery).type(at: "/counters/0/counter")   // "CounterModel"
/// ```
struct ModelTypeLookup {
  let root: JSONValue
  let definitions: [String: JSONValue]

  init(document: JSONValue) {
    root = document["components"]?["schemas"]?["State"] ?? [:]
    definitions = root["$defs"]?.objectValue ?? [:]
  }

  /// The type of the model at `path`; nil when the path does not name a model.
  func type(at path: String) throws -> String? {
    try walk(root, tokens: JSONPointer(path).tokens[...], name: nil)
  }

  private func walk(_ schema: JSONValue, tokens: ArraySlice<String>, name: String?) -> String? {
    if let reference = schema["$ref"]?.stringValue {
      let definition = String(reference.split(separator: "/").last ?? "")
      guard let target = definitions[definition] else { return nil }
      return walk(target, tokens: tokens, name: definition)
    }
    if let choices = (schema["anyOf"] ?? schema["oneOf"])?.arrayValue {
      for choice in choices {
        if let found = walk(choice, tokens: tokens, name: nil) { return found }
      }
      return nil
    }
    guard let token = tokens.first else {
      // A model's definition is an object with an id.
      return schema["properties"]?["id"] != nil ? name : nil
    }
    let rest = tokens.dropFirst()
    if let property = schema["properties"]?[token] { return walk(property, tokens: rest, name: nil) }
    if let items = schema["items"], Int(token) != nil { return walk(items, tokens: rest, name: nil) }
    if let values = schema["additionalProperties"], values.boolValue == nil { return walk(values, tokens: rest, name: nil) }
    return nil
  }
}
