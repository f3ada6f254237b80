import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl schema [INTENT]`: the daemon's methods and intents, or one intent's parameters.
struct SchemaCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "schema", abstract: "List the daemon's methods, intents and events, or show one intent's parameters.",
    discussion: """
      Piped without INTENT, the whole OpenRPC document (rpc.discover) on one line; with INTENT, one line per model type that has it: \
      {"modelType","intent","params","result"} with their JSON Schemas.
      """)

  @Argument(help: "An intent's name, such as removeButtonTapped.", completion: .custom(Completions.allIntents))
  var intent: String?

  @OptionGroup var connection: ConnectionOptions
  @OptionGroup var printing: PrintOptions

  func validate() throws { try printing.check(json: connection.json) }

  func run() async throws {
    do {
      let document = try await connection.withConnection { try await $0.call(.discover) }
      let intents = document["components"]?["x-intents"]?.objectValue ?? [:]
      guard let intent else {
        if printing.printedAsData(document, json: connection.json) { return }
        return Self.printOverview(document)
      }
      let owners = intents.keys.sorted().filter { intents[$0]?[intent] != nil }
      guard !owners.isEmpty else {
        let all = Set(intents.values.flatMap { $0.objectValue?.keys.map { $0 } ?? [] }).sorted()
        throw CommandFailure(.daemonError, "no model type has an intent '\(intent)'\n  intents: \(all.joined(separator: ", "))")
      }
      for owner in owners {
        let entry = intents[owner]![intent]!
        let record: JSONValue = ["modelType": .string(owner), "intent": .string(intent), "params": entry["params"] ?? [:], "result": entry["result"] ?? [:]]
        if printing.printedAsData(record, json: connection.json) { continue }
        print(Style.name("\(owner).\(intent)"))
        let parameters = SchemaText.parameters(entry["params"] ?? [:])
        if parameters.isEmpty { print("  " + Style.dim("no parameters")) }
        let width = parameters.map(\.name.count).max() ?? 0
        for parameter in parameters {
          let padding = String(repeating: " ", count: width - parameter.name.count)
          print("  \(parameter.name)\(padding)  \(parameter.type)\(parameter.required ? "" : Style.dim("  optional"))")
        }
        print("  " + Style.dim("result: ") + SchemaText.describe(entry["result"] ?? [:]))
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: printing.printsErrorsAsJSON(json: connection.json))
    }
  }

  static func printOverview(_ document: JSONValue) {
    print(Style.name(document["info"]?["title"]?.stringValue ?? "daemon") + " " + (document["info"]?["version"]?.stringValue ?? ""))
    print("\nMethods (role needed):")
    let methods = document["methods"]?.arrayValue ?? []
    let width = methods.compactMap { $0["name"]?.stringValue?.count }.max() ?? 0
    for method in methods {
      let name = method["name"]?.stringValue ?? ""
      let role = method["x-role"]?.stringValue ?? ""
      print("  \(Style.name(name))\(String(repeating: " ", count: width - name.count))  \(role.padding(toLength: 8, withPad: " ", startingAt: 0))  \(Style.dim(method["summary"]?.stringValue ?? ""))")
    }
    print("\nIntents (arborctl call TARGET INTENT key=value …):")
    let intents = document["components"]?["x-intents"]?.objectValue ?? [:]
    for type in intents.keys.sorted() {
      print("  " + Style.name(type))
      let byName = intents[type]?.objectValue ?? [:]
      for name in byName.keys.sorted() { print("    " + SchemaText.signature(name, params: byName[name]?["params"] ?? [:])) }
    }
    let events = document["components"]?["x-events"]?.objectValue ?? [:]
    if !events.isEmpty {
      print("\nEvents (arborctl events --type TYPE.Event):")
      for type in events.keys.sorted() { print("  \(Style.name(type + ".Event"))  \(SchemaText.describe(events[type]!))") }
    }
  }
}
