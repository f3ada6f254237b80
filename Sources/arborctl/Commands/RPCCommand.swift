import ArborJSON
import ArgumentParser

/// `arborctl rpc METHOD [JSON]`: any method, its params as JSON, the raw result.
struct RPCCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "rpc", abstract: "Call any method with its params as JSON and print the result.")

  @Argument(help: "The method, such as daemon.status or history.changes.")
  var method: String

  @Argument(help: "The params as a JSON object or array.")
  var params: String?

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    do {
      var body: JSONValue?
      if let params {
        guard let parsed = try? JSONValue(parsing: params) else {
          throw CommandFailure(.usage, "the params are not JSON: \(params)")
        }
        body = parsed
      }
      let method = self.method
      let given = body
      let result = try await connection.withConnection { try await $0.call(method, given) }
      if connection.printsJSON { Output.json(result) } else { Output.pretty(result) }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
