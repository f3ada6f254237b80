import ArborJSON

/// Where models of given types sit in the state: the state's value walked beside its JSON
/// Schema (the root's `stateSchema`, whose models are `$ref`s to `$defs` named by type),
/// for "CounterModel has one of that name, at /counters/0/counter".
///
/// ```swift
/// ModelPaths.find(types: ["CounterModel"], in: state, schema: AppModel.stateSchema.value, limit: 3)
/// // ["/counters/0/counter", "/counters/1/counter"]
/// ```
enum ModelPaths {
  static func find(types: Set<String>, in state: JSONValue, schema: JSONValue, limit: Int) -> [String] {
    let definitions = schema["$defs"]?.objectValue ?? [:]
    var found: [String] = []
    walk(state, schema, at: [], definitions: definitions, types: types, limit: limit, into: &found)
    return found
  }

  private static func walk(
    _ value: JSONValue, _ schema: JSONValue, at tokens: [String], definitions: [String: JSONValue], types: Set<String>, limit: Int,
    into found: inout [String], depth: Int = 0
  ) {
    guard found.count < limit, depth < 64 else { return }
    var schema = schema
    if case .string(let reference)? = schema["$ref"], reference.hasPrefix("#/$defs/") {
      let name = String(reference.dropFirst("#/$defs/".count))
      // A model is an object: a `null` where an optional model may be is none.
      if types.contains(name), case .object = value { found.append(tokens.isEmpty ? "/" : JSONPointer(tokens: tokens).description) }
      guard let definition = definitions[name] else { return }
      schema = definition
    }
    for key in ["anyOf", "oneOf"] {
      for option in schema[key]?.arrayValue ?? [] {
        walk(value, option, at: tokens, definitions: definitions, types: types, limit: limit, into: &found, depth: depth + 1)
      }
    }
    switch value {
    case .object(let members):
      let properties = schema["properties"]?.objectValue ?? [:]
      for (key, member) in members.sorted(by: { $0.key < $1.key }) {
        guard let child = properties[key] ?? schema["additionalProperties"], child.objectValue != nil else { continue }
        walk(member, child, at: tokens + [key], definitions: definitions, types: types, limit: limit, into: &found, depth: depth + 1)
      }
    case .array(let items):
      guard let child = schema["items"], child.objectValue != nil else { return }
      for (index, item) in items.enumerated() {
        walk(item, child, at: tokens + [String(index)], definitions: definitions, types: types, limit: limit, into: &found, depth: depth + 1)
      }
    default:
      return
    }
  }
}
