import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl status`: the daemon's name, revision, clients, intent rate and journal.
struct StatusCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "status", abstract: "Show the daemon's status.")

  @OptionGroup var connection: ConnectionOptions
  @OptionGroup var printing: PrintOptions

  func validate() throws { try printing.check(json: connection.json) }

  func run() async throws {
    do {
      let status = try await connection.withConnection { try await $0.call(.status) }
      if printing.printedAsData(status, json: connection.json) { return }
      guard case .object(let members) = status else { return Output.pretty(status) }
      var rows: [(String, String)] = []
      for key in ["name", "root", "version", "pid", "revision", "uptime", "clients", "subscriptions", "intentsPerSecond", "intentsInFlight", "http", "generation", "startedAt"] {
        guard let value = members[key] else { continue }
        // On a terminal, for people: the uptime in its units (JSON keeps seconds).
        if key == "uptime", let seconds = value.doubleValue {
          rows.append((key, HumanUnits.duration(seconds: seconds)))
        } else {
          rows.append((key, Output.text(value)))
        }
      }
      if case .object(let journal)? = members["journal"] {
        for key in journal.keys.sorted() {
          if key == "bytes", let bytes = journal[key]?.doubleValue {
            rows.append(("journal.bytes", HumanUnits.bytes(bytes)))
          } else {
            rows.append(("journal.\(key)", Output.text(journal[key]!)))
          }
        }
      }
      Output.table(rows)
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: printing.printsErrorsAsJSON(json: connection.json))
    }
  }
}
