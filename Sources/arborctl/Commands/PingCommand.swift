import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl ping [--count N]`: whether the daemon answers, and how fast.
struct PingCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ping", abstract: "Check that the daemon answers, and time the round trip.",
    discussion: """
      Sends daemon.status COUNT times on one connection and prints each round trip: \
      `pong from counterfactd (protocol 1) at revision 12 in 0.21 ms`. Piped: \
      {"name","protocol","revision","milliseconds"} per line. Exits 0 when every ping was answered.
      """)

  @Option(help: "How many pings (default: 1).")
  var count: Int?

  @OptionGroup var connection: ConnectionOptions

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
  }

  func run() async throws {
    let (count, json) = (self.count ?? 1, connection.printsJSON)
    do {
      try await connection.withConnection { connection in
        for _ in 0..<count {
          let start = ContinuousClock.now
          let status = try await connection.call(.status)
          let elapsed = ContinuousClock.now - start
          let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
          let name = status["name"]?.stringValue ?? "daemon"
          let version = status["protocol"] ?? .null
          let revision = status["revision"] ?? .null
          if json {
            Output.json(["name": .string(name), "protocol": version, "revision": revision, "milliseconds": .double(milliseconds)])
          } else {
            let note = version == .int(Int64(ArborProtocol.version)) ? "" : Style.dim(" (arborctl speaks protocol \(ArborProtocol.version))")
            print("pong from \(name) (protocol \(Output.text(version))) at revision \(Output.text(revision)) in \(String(format: "%.2f", milliseconds)) ms\(note)")
          }
        }
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
