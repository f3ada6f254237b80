import ArborClient
import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl call TARGET INTENT [key=value …] [--params JSON]`: calls an intent.
struct CallCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "call", abstract: "Call an intent of the model at a path (/ for the root).",
    discussion: "Each key=value is a parameter: the value is read as JSON when it is JSON (3, true, [1,2], \"text\"), else as a string.")

  @Argument(
    help: "The model: a JSON Pointer such as /counters/0/counter, or / for the root.", completion: .custom(Completions.targets),
    transform: CommandLinePath.wire)
  var target: String

  @Argument(help: "The intent's name.", completion: .custom(Completions.intents))
  var intent: String

  @Argument(help: "Parameters as key=value.")
  var parameters: [String] = []

  @Option(help: "All parameters as one JSON object (key=value pairs are added to it).")
  var params: String?

  @Flag(help: "Reply once the tasks the intent started have ended too.")
  var settled = false

  @OptionGroup var connection: ConnectionOptions

  /// The parameters as one JSON object.
  func parameterObject() throws(CommandFailure) -> JSONValue {
    var members: [String: JSONValue] = [:]
    if let params {
      guard case .object(let given)? = try? JSONValue(parsing: params) else {
        throw CommandFailure(.usage, "--params must be a JSON object, such as '{\"id\": \"72c769dae94f5354\"}'")
      }
      members = given
    }
    for parameter in parameters {
      guard let equals = parameter.firstIndex(of: "="), equals != parameter.startIndex else {
        throw CommandFailure(.usage, "'\(parameter)' is not key=value")
      }
      let key = String(parameter[..<equals])
      let text = String(parameter[parameter.index(after: equals)...])
      members[key] = (try? JSONValue(parsing: text)) ?? .string(text)
    }
    return .object(members)
  }

  func run() async throws {
    do {
      let arguments = try parameterObject()
      var request: [String: JSONValue] = [
        "target": .string(target), "intent": .string(intent), "params": arguments,
      ]
      if settled { request["wait"] = "settled" }
      let body = JSONValue.object(request)
      let given = parameters
      let reply = try await connection.withConnection { connection in
        do throws(ArborClientError) {
          return try await connection.call(.intentCall, body)
        } catch .daemon(let error) where error.code == 1003 {
          // A parameter that does not decode: say what the intent's schema expects.
          throw await CommandFailure(.daemonError, Self.explain(error, on: connection, given: given), rpcError: error)
        }
      }
      if connection.printsJSON { return Output.json(reply) }
      guard case .object(let members) = reply else { return Output.pretty(reply) }
      print("revision \(Output.text(members["revision"] ?? .null))")
      if let result = members["result"], result != .null { Output.pretty(result) }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }

  /// The daemon's message about a parameter, with the type each model's schema expects
  /// for it and the intent's whole signature.
  static func explain(_ error: RPCError, on connection: ArborConnection, given: [String]) async -> String {
    var text = error.message
    guard let intent = error.data?["intent"]?.stringValue,
      let document = try? await connection.call(.discover),
      let intents = document["components"]?["x-intents"]?.objectValue
    else { return text }
    let parameter = error.data?["parameter"]?.stringValue
    // Another model's intent of the same name that has no such parameter is not the one
    // called: its signature would only mislead (unless none has it: an unknown parameter).
    let types = intents.keys.sorted().filter { intents[$0]?[intent]?["params"] != nil }
    let having = types.filter { type in parameter.map { intents[type]?[intent]?["params"]?["properties"]?[$0] != nil } ?? true }
    for type in having.isEmpty ? types : having {
      guard let params = intents[type]?[intent]?["params"] else { continue }
      // What the parameter must be: its type, or the values an enum allows; nothing when
      // its schema accepts anything.
      if let parameter, let schema = params["properties"]?[parameter], let requirement = SchemaText.requirement(schema) {
        text += "\n  \(parameter) must be \(requirement)"
        // key=3 is read as JSON: a string parameter needs its quotes kept from the shell.
        if requirement.hasPrefix("string"), let pair = given.first(where: { $0.hasPrefix(parameter + "=") }) {
          let value = String(pair.dropFirst(parameter.count + 1))
          if let parsed = try? JSONValue(parsing: value), parsed.stringValue == nil {
            text += "\n  \(parameter)=\(value) was read as JSON (\(parsed.typeName)); to send it as a string, quote it: \(parameter)='\"\(value)\"'"
          }
        }
      }
      text += "\n  \(type).\(SchemaText.signature(intent, params: params))"
    }
    return text
  }
}
