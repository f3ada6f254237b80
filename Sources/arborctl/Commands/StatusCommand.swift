import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl status`: the daemon's name, revision, clients, intent rate and journal.
struct StatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon's status.")

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    do {
      let status = try await connection.withConnection { try await $0.call(.status) }
      if connection.printsJSON { return Output.json(status) }
      guard case .object(let members) = status else { return Output.pretty(status) }
      var rows: [(String, String)] = []
      for key in ["name", "root", "version", "pid", "revision", "uptime", "clients", "subscriptions", "intentsPerSecond", "intentsInFlight", "http"] {
        if let value = members[key] { rows.append((key, Output.text(value))) }
      }
      if case .object(let journal)? = members["journal"] {
        for key in journal.keys.sorted() { rows.append(("journal.\(key)", Output.text(journal[key]!))) }
      }
      Output.table(rows)
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
