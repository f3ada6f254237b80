import Arbor
import ArborJSON
import ArborRPC

/// The OpenRPC 1.3 document of `rpc.discover` (`ArborRPC`'s ``OpenRPCDocument``): every
/// method with the JSON Schemas of its parameters and result, inferred from its `Params`
/// and `Result` types (the ones the daemon reads and replies), and every intent of every
/// model type the tree can hold, plus the schemas of the state and of the events.
struct DiscoveryDocument: Sendable {
  /// The document, encoded once.
  let document: JSONValue

  init(name: String, host: any TreeHost) {
    var definitions = JSONSchemaDefinitions()
    var intents: [String: [String: OpenRPCDocument.IntentSchemas]] = [:]
    var events: [String: JSONSchema] = [:]
    var gathered: [String: [IntentSchema]] = [:]
    for type in host.modelTypes {
      let schemas = type.intentSchemas(in: &definitions)
      if !schemas.isEmpty { gathered[type._$typeName] = schemas }
      if let event = type.eventSchema { events[type._$typeName] = event }
    }
    // The named types of parameters and results (a struct an intent returns, an enum it
    // takes) are written out in place: each intent's schemas stand alone, as the methods'
    // do, with no `$ref` to a `$defs` the document does not have.
    let named = definitions.definitions.mapValues(\.value)
    for (type, schemas) in gathered {
      intents[type] = Dictionary(
        schemas.map { schema in
          (
            schema.name,
            OpenRPCDocument.IntentSchemas(
              params: JSONSchema(Self.inline(schema.parameters.value, named)), result: JSONSchema(Self.inline(schema.result.value, named)))
          )
        }, uniquingKeysWith: { _, last in last })
    }
    let openRPC = OpenRPCDocument(
      openrpc: "1.3.2", info: .init(title: name, version: ArborDaemonVersion.current), methods: Method.allCases.map(Self.describe),
      components: .init(schemas: ["State": host.modelTypes.first?.stateSchema ?? .null], intents: intents, events: events))
    document = (try? JSONValueEncoder().encode(openRPC)) ?? .null
  }

  /// A method's entry: its parameters are the properties of its `Params` type (those
  /// `ArborMethod.parameters` lists first, in its order), its result the schema of its
  /// `Result` type.
  static func describe(_ method: Method) -> OpenRPCDocument.Method {
    let (params, result) = schemas(of: method.definition)
    var descriptors: [OpenRPCDocument.ContentDescriptor] = []
    if case .object(let object) = params.value {
      let properties = object["properties"]?.objectValue ?? [:]
      let required = Set((object["required"]?.arrayValue ?? []).compactMap(\.stringValue))
      let names = method.parameters.filter { properties[$0] != nil } + properties.keys.filter { !method.parameters.contains($0) }.sorted()
      for name in names {
        var schema = JSONSchema(properties[name] ?? [:])
        if let note = method.definition.parameterNotes[name] { schema = schema.description(note) }
        descriptors.append(.init(name: name, required: required.contains(name), schema: schema))
      }
    }
    return OpenRPCDocument.Method(
      name: method.rawValue, summary: method.definition.summary, params: descriptors,
      result: .init(name: method.rawValue + ".result", schema: result), role: method.requiredRole.description)
  }

  /// The schemas of a method's `Params` and `Result`, each self-contained (no `$ref`).
  static func schemas<Definition: ArborMethodDefinition>(of definition: Definition.Type) -> (params: JSONSchema, result: JSONSchema) {
    var definitions = JSONSchemaDefinitions()
    let params = definitions.schema(for: Definition.Params.self)
    let result = definitions.schema(for: Definition.Result.self)
    let named = definitions.definitions.mapValues(\.value)
    return (JSONSchema(inline(params.value, named)), JSONSchema(inline(result.value, named)))
  }

  /// `schema` with each `{"$ref": "#/$defs/Name"}` replaced by that definition (with the
  /// reference's own annotations kept). The protocol's types are not recursive; a user's
  /// type may be: past 32 levels, a value is described as any JSON, never as a `$ref`.
  static func inline(_ schema: JSONValue, _ definitions: [String: JSONValue], depth: Int = 0) -> JSONValue {
    guard depth < 32 else { return ["description": "nested deeper than this document describes"] }
    switch schema {
    case .object(var members):
      if case .string(let reference)? = members["$ref"], reference.hasPrefix("#/$defs/"),
        let definition = definitions[String(reference.dropFirst("#/$defs/".count))]
      {
        members["$ref"] = nil
        guard case .object(var resolved) = inline(definition, definitions, depth: depth + 1) else { return definition }
        for (key, value) in members { resolved[key] = value }
        return .object(resolved)
      }
      return .object(members.mapValues { inline($0, definitions, depth: depth + 1) })
    case .array(let items):
      return .array(items.map { inline($0, definitions, depth: depth + 1) })
    default:
      return schema
    }
  }
}
