import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl get [PATH]`: the state at a path (a JSON Pointer; the root by default).
struct GetCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "get", abstract: "Show the state at a path (a JSON Pointer such as /counters/0).")

  @Argument(help: "A JSON Pointer (/ is the root too); the root when absent.", completion: .custom(Completions.paths), transform: CommandLinePath.wire)
  var path: String = ""

  @OptionGroup var connection: ConnectionOptions
  @OptionGroup var printing: PrintOptions

  func validate() throws { try printing.check(json: connection.json) }

  func run() async throws {
    let path = self.path
    do {
      let reply = try await connection.withConnection { try await $0.call(.stateGet, ["path": .string(path)]) }
      if printing.printedAsData(reply, json: connection.json) { return }
      guard case .object(let members) = reply else { return Output.pretty(reply) }
      print("revision \(Output.text(members["revision"] ?? .null))")
      Output.pretty(members["value"] ?? .null)
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: printing.printsErrorsAsJSON(json: connection.json))
    }
  }
}
