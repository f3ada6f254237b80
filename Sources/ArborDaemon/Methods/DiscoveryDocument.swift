import Arbor
import ArborJSON

/// The OpenRPC 1.x document of `rpc.discover`: every method with its parameters and
/// result, and every intent of every model type the tree can hold with its JSON Schemas,
/// plus the schemas of the state and of the events.
struct DiscoveryDocument: Sendable {
  let document: JSONValue

  init(name: String, host: any TreeHost) {
    var definitions = JSONSchemaDefinitions()
    var intents: [String: JSONValue] = [:]
    var events: [String: JSONValue] = [:]
    for type in host.modelTypes {
      let schemas = type.intentSchemas(in: &definitions)
      if !schemas.isEmpty {
        intents[type._$typeName] = .object(Dictionary(uniqueKeysWithValues: schemas.map { schema in
          (schema.name, ["params": Self.json(schema.parameters), "result": Self.json(schema.result)] as JSONValue)
        }))
      }
      if let event = type.eventSchema { events[type._$typeName] = Self.json(event) }
    }
    let state = Self.json(host.modelTypes.first.map { $0.stateSchema } ?? .null)
    let methods: [JSONValue] = Method.allCases.map { method in
      [
        "name": .string(method.rawValue),
        "summary": .string(method.summary),
        "paramStructure": "by-name",
        "params": .array(method.parameterDocs.map { name, schema, required in
          ["name": .string(name), "required": .bool(required), "schema": schema]
        }),
        "result": ["name": .string(method.rawValue + ".result"), "schema": method.resultSchema],
        "x-role": .string(method.requiredRole.description),
      ]
    }
    document = [
      "openrpc": "1.3.2",
      "info": ["title": .string(name), "version": .string(ArborDaemonVersion.current)],
      "methods": .array(methods),
      "components": [
        "schemas": ["State": state],
        "x-intents": .object(intents),
        "x-events": .object(events),
      ],
    ]
  }

  private static func json(_ schema: JSONSchema) -> JSONValue {
    (try? JSONValueEncoder().encode(schema)) ?? .null
  }
}

extension Method {
  var summary: String {
    switch self {
    case .discover: return "This document."
    case .status: return "The daemon's name, version, pid, uptime, revision, clients, subscriptions and intent rate."
    case .stateGet: return "The state at a path (a JSON Pointer; \"\" is the root) and the revision it reflects."
    case .stateSnapshot: return "The snapshot record of the whole tree."
    case .stateRestore: return "Replaces the tree from a snapshot record; watchers get a resync."
    case .intentCall: return "Calls an intent of the model at a path or with an id; replies once its synchronous part has committed."
    case .stateWatch: return "The value at a path and its revision, then state.changed notifications with the patch of each later revision."
    case .eventsWatch: return "events.emitted notifications for the Codable events sent at or below a path."
    case .watchCancel: return "Ends a watch of this connection."
    case .historyChanges: return "The journalled revisions after 'since' (oldest first, at most 'limit'), each with its time, intent, target and patch, and where the next page starts."
    case .stateAt: return "The state at a path as it was at a past revision inside the history kept (time travel)."
    case .historyUndo: return "Undoes the most recent undo step of the tree (the root tracks undo with node.trackUndo) as one transaction; replies with the new revision."
    case .historyRedo: return "Redoes the most recently undone step as one transaction; replies with the new revision."
    }
  }

  var parameterDocs: [(String, JSONValue, Bool)] {
    let pointer: JSONValue = ["type": "string", "description": "a JSON Pointer into the state; \"\" is the root"]
    let revision: JSONValue = ["type": "integer", "minimum": 0]
    switch self {
    case .discover, .status, .stateSnapshot, .historyUndo, .historyRedo: return []
    case .stateGet: return [("path", pointer, false)]
    case .stateRestore: return [("record", ["type": "object", "description": "a snapshot record, as state.snapshot returns it"], true)]
    case .intentCall:
      return [
        ("target", ["oneOf": [pointer, ["type": "object", "properties": ["id": ["type": "string", "pattern": "^[0-9a-f]{16}$"]], "required": ["id"]]]], false),
        ("intent", ["type": "string"], true),
        ("params", ["type": "object"], false),
        ("wait", ["enum": ["committed", "settled"]], false),
      ]
    case .stateWatch: return [("path", pointer, false), ("since", revision, false)]
    case .eventsWatch: return [("path", pointer, false), ("types", ["type": "array", "items": ["type": "string"]], false)]
    case .watchCancel: return [("subscription", ["type": "integer"], true)]
    case .historyChanges: return [("since", revision, false), ("limit", ["type": "integer", "minimum": 1, "maximum": .int(Int64(RequestHandler.maxHistoryPage))], false)]
    case .stateAt: return [("revision", revision, true), ("path", pointer, false)]
    }
  }

  var resultSchema: JSONValue {
    let revision: JSONValue = ["type": "integer", "minimum": 0]
    switch self {
    case .discover: return ["type": "object"]
    case .status:
      return [
        "type": "object",
        "properties": ["undo": ["type": ["object", "null"], "description": "null when no model tracks undo", "properties": ["canUndo": ["type": "boolean"], "canRedo": ["type": "boolean"]], "required": ["canUndo", "canRedo"]]],
        "required": ["name", "version", "protocol", "pid", "uptime", "revision", "clients", "subscriptions", "intentsPerSecond"],
      ]
    case .stateGet: return ["type": "object", "properties": ["revision": revision, "value": [:]], "required": ["revision", "value"]]
    case .stateSnapshot: return ["type": "object", "required": ["format", "root", "schema", "revision", "createdAt", "state"]]
    case .stateRestore: return ["type": "object", "properties": ["revision": revision], "required": ["revision"]]
    case .intentCall:
      return [
        "type": "object", "properties": ["revision": revision, "result": [:], "firstRevision": revision, "commits": ["type": "integer", "minimum": 2]],
        "required": ["revision", "result"],
      ]
    case .stateWatch: return ["type": "object", "properties": ["subscription": ["type": "integer"], "revision": revision, "value": [:]], "required": ["subscription", "revision"]]
    case .eventsWatch: return ["type": "object", "properties": ["subscription": ["type": "integer"]], "required": ["subscription"]]
    case .watchCancel: return ["type": "object", "properties": ["subscription": ["type": "integer"], "cancelled": ["type": "boolean"]]]
    case .historyChanges: return ["type": "object", "properties": ["changes": ["type": "array"], "oldest": revision, "revision": revision, "next": [:]], "required": ["changes", "oldest", "revision", "next"]]
    case .stateAt: return ["type": "object", "properties": ["revision": revision, "value": [:], "time": ["type": "string"]], "required": ["revision", "value"]]
    case .historyUndo, .historyRedo:
      return [
        "type": "object",
        "properties": ["revision": revision, "canUndo": ["type": "boolean"], "canRedo": ["type": "boolean"]],
        "required": ["revision", "canUndo", "canRedo"],
      ]
    }
  }
}
