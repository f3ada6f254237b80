import ArborClient
import ArborJSON
import ArborRPC
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The discovery document says what the daemon sends: it has the shape of an OpenRPC 1.3
/// document, lists every method `ArborRPC` defines, and every method's reply in a real
/// session validates against the result schema the document declares (checked by Python's
/// `jsonschema`, not by our own code).
@Suite(.startsProcesses) struct DiscoveryConformanceTests {
  /// The parts of OpenRPC 1.3's document structure the daemon uses, written from the
  /// specification: an `openrpc` version, `info` with title and version, and methods with a
  /// name, content descriptors for `params` (each a name and a schema) and a `result`.
  static let openRPCShape: JSONValue = [
    "type": "object",
    "required": ["openrpc", "info", "methods"],
    "properties": [
      "openrpc": ["type": "string", "pattern": "^1\\.3\\.[0-9]+$"],
      "info": ["type": "object", "required": ["title", "version"], "properties": ["title": ["type": "string"], "version": ["type": "string"]]],
      "methods": [
        "type": "array",
        "items": [
          "type": "object",
          "required": ["name", "params", "result"],
          "properties": [
            "name": ["type": "string", "minLength": 1],
            "summary": ["type": "string"],
            "params": ["type": "array", "items": ["$ref": "#/$defs/contentDescriptor"]],
            "result": ["$ref": "#/$defs/contentDescriptor"],
            "paramStructure": ["enum": ["by-name", "by-position", "either"]],
          ],
        ],
      ],
      "components": ["type": "object"],
    ],
    "$defs": [
      "contentDescriptor": [
        "type": "object", "required": ["name", "schema"],
        "properties": ["name": ["type": "string", "minLength": 1], "schema": ["type": ["object", "boolean"]], "required": ["type": "boolean"]],
      ]
    ],
  ]

  /// Validates each instance against its schema with Python's jsonschema (draft 2020-12);
  /// the errors, one per line.
  static func validate(_ cases: [(what: String, schema: JSONValue, instance: JSONValue)]) async throws -> [String] {
    let script = """
      import json, sys
      from jsonschema import Draft202012Validator
      failures = []
      for case in json.load(sys.stdin):
          for error in Draft202012Validator(case["schema"]).iter_errors(case["instance"]):
              failures.append(case["what"] + ": " + error.message[:300] + " at " + "/".join(str(p) for p in error.absolute_path))
      print(json.dumps(failures))
      """
    let input = JSONValue.array(cases.map { ["what": .string($0.what), "schema": $0.schema, "instance": $0.instance] }).jsonString
    let result = try await withDeadline("python3 to validate \(cases.count) replies") {
      try await run(.name("python3"), arguments: ["-c", script], input: .string(input), output: .string(limit: 1 << 22), error: .string(limit: 1 << 16))
    }
    guard result.terminationStatus == .exited(0), let failures = try? JSONValue(parsing: result.standardOutput) else {
      throw HarnessError("python3 jsonschema failed (is jsonschema installed? `make python-deps`): \(result.standardError)")
    }
    return (failures.arrayValue ?? []).compactMap(\.stringValue)
  }

  @Test func everyReplyValidatesAgainstTheResultSchemaTheDocumentDeclares() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      let document = try await client.call(.discover)
      var results: [ArborMethod: JSONValue] = [:]
      results[.discover] = document
      results[.status] = try await client.call(.status)
      results[.metrics] = try await client.call(.metrics)
      results[.intentCall] = try await client.call(.intentCall, ["intent": "addButtonTapped"])
      try await client.call(.intentCall, ["target": "/counters/0/counter", "intent": "incrementTapped"])
      results[.stateGet] = try await client.call(.stateGet, ["path": "/counters"])
      let record = try await client.call(.stateSnapshot)
      results[.stateSnapshot] = record
      results[.historyChanges] = try await client.call(.historyChanges, ["since": 0])
      results[.stateAt] = try await client.call(.stateAt, ["revision": 1, "path": ""])
      results[.historyUndo] = try await client.call(.historyUndo)
      results[.historyRedo] = try await client.call(.historyRedo)
      let watcher = try await daemon.connect()
      let watch = try await watcher.call(.stateWatch, ["path": "/counters"])
      results[.stateWatch] = watch
      results[.eventsWatch] = try await watcher.call(.eventsWatch)
      results[.watchCancel] = try await watcher.call(.watchCancel, ["subscription": watch["subscription"] ?? .null])
      results[.stateRestore] = try await client.call(.stateRestore, ["record": record])
      // An upgrade would hand this daemon over to a process of its own: its reply is the
      // result type as the daemon encodes it (`DaemonUpgradeTests` makes real ones).
      results[.upgrade] = try JSONValueEncoder().encode(DaemonUpgradeMethod.Result(pid: 4242, binary: "/usr/local/bin/counterfactd"))
      #expect(Set(results.keys) == Set(ArborMethod.allCases), "a method without a reply checked: \(Set(ArborMethod.allCases).subtracting(results.keys))")

      let methods = document["methods"]?.arrayValue ?? []
      let declared = Dictionary(methods.compactMap { method in method["name"]?.stringValue.map { ($0, method) } }, uniquingKeysWith: { first, _ in first })
      #expect(Set(declared.keys) == Set(ArborMethod.allCases.map(\.rawValue)), "the document's methods are ArborRPC's")
      var cases: [(String, JSONValue, JSONValue)] = [("the discovery document's shape", Self.openRPCShape, document)]
      for (method, result) in results {
        guard let schema = declared[method.rawValue]?["result"]?["schema"] else {
          Issue.record("\(method.rawValue) declares no result schema")
          continue
        }
        // The document's own components resolve `$ref`s inside the result schemas.
        var withDefinitions = schema
        if case .object(var members) = schema, let components = document["components"] {
          members["components"] = components
          withDefinitions = .object(members)
        }
        cases.append(("the reply to \(method.rawValue)", withDefinitions, result))
        // The declared parameters are the ones ArborRPC accepts.
        let params = Set((declared[method.rawValue]?["params"]?.arrayValue ?? []).compactMap { $0["name"]?.stringValue })
        #expect(params == Set(method.parameters), "\(method.rawValue): the document declares \(params.sorted()), ArborRPC accepts \(method.parameters)")
      }
      let failures = try await Self.validate(cases)
      #expect(failures.isEmpty, "\(failures.count) replies do not match their declared schema:\n\(failures.joined(separator: "\n"))")
    }
  }

  /// Each intent's parameters and result stand alone: no `$ref` in `x-intents` or
  /// `x-events` (a struct an intent returns, an enum it takes, are written out in place),
  /// and every `$ref` of the state's schema names a definition it carries.
  @Test(arguments: ["counterfactd", "todosd"])
  func everyReferenceResolvesInTheDocument(daemonName: String) async throws {
    let binary = daemonName == "todosd" ? TodosCalls.todosd() : DaemonHarness.binary()
    try await withDaemon(binary: binary) { daemon, _ in
      let document = try await daemon.connect().call("rpc.discover")
      for part in ["x-intents", "x-events"] {
        let references = Self.references(in: document["components"]?[part] ?? .null)
        #expect(references.isEmpty, "\(daemonName): \(part) refers to \(references.sorted())")
      }
      let state = document["components"]?["schemas"]?["State"] ?? .null
      let defined = Set(state["$defs"]?.objectValue?.keys.map { "#/$defs/" + $0 } ?? [])
      let dangling = Self.references(in: state).subtracting(defined)
      #expect(dangling.isEmpty, "\(daemonName): the state's schema refers to \(dangling.sorted()), which it does not define")
      if daemonName == "todosd" {
        let summary = document["components"]?["x-intents"]?["TodoListModel"]?["summary"]?["result"]
        #expect(summary?["properties"]?["remaining"]?["type"] == "integer", "TodoSummary written out: \(summary ?? .null)")
      }
    }
  }

  /// Every `$ref` string inside `value`.
  static func references(in value: JSONValue) -> Set<String> {
    switch value {
    case .object(let members):
      var found = Set(members.values.flatMap { references(in: $0) })
      if case .string(let reference)? = members["$ref"] { found.insert(reference) }
      return found
    case .array(let items): return Set(items.flatMap { references(in: $0) })
    default: return []
    }
  }

  @Test func theValidatorCatchesAReplyThatDoesNotMatch() async throws {
    let failures = try await Self.validate([
      ("a reply without its revision", ["type": "object", "required": ["revision"]], ["value": 1]),
      ("a document without methods", Self.openRPCShape, ["openrpc": "1.3.2", "info": ["title": "x", "version": "1"]]),
    ])
    #expect(failures.count == 2, "\(failures)")
  }
}
