import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl at REVISION [PATH]`: the state at a path as it was at a past revision.
struct AtCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "at", abstract: "Show the state at a path as it was at a past revision (time travel).",
    discussion: "Any revision from the oldest the daemon keeps (arborctl status: journal.oldestRevision) to the current one.")

  @Argument(help: "The revision.")
  var revision: UInt64

  @Argument(help: "A JSON Pointer (/ is the root too); the root when absent.", completion: .custom(Completions.paths), transform: CommandLinePath.wire)
  var path: String = ""

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    let params: JSONValue = ["revision": .int(Int64(revision)), "path": .string(path)]
    do {
      let reply = try await connection.withConnection { try await $0.call(.stateAt, params) }
      if connection.printsJSON { return Output.json(reply) }
      let time = reply["time"]?.stringValue.map { "  " + Style.dim($0) } ?? ""
      print(Style.revision("revision \(Output.text(reply["revision"] ?? .null))") + time)
      Output.pretty(reply["value"] ?? .null)
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
