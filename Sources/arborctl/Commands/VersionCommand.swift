import ArborClient
import ArborJSON
import ArborRPC
import ArgumentParser
import Foundation

/// `arborctl version`: arborctl's release and protocol, and the daemon's when one answers
/// (as `kubectl version` and `docker version` show the client and the server).
///
/// ```sh
/// $ arborctl version
/// arborctl 0.1.0, protocol 1
/// counterfactd 0.1.0 (AppModel), protocol 1, at /run/arbor/counterfactd.sock
/// ```
struct VersionCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "version", abstract: "Show arborctl's version, and the daemon's when one answers.",
    discussion: "Does not wait for a daemon that is starting: without one, only arborctl's line is printed (and the reason on standard error), exit 0.")

  @OptionGroup var connection: ConnectionOptions
  @OptionGroup var printing: PrintOptions

  func validate() throws { try printing.check(json: connection.json) }

  func run() async throws {
    var client: [String: JSONValue] = ["name": "arborctl", "version": .string(ArborProtocol.release), "protocol": .int(Int64(ArborProtocol.version))]
    var daemonLine: String?
    do {
      let socket = try connection.address()
      let daemonClient = try connection.client(reconnect: .never)
      let status = try await connection.withTimeout(path: socket) {
        let daemon = try await daemonClient.connect()
        defer { daemon.close() }
        return try await daemon.call(.status)
      }
      client["daemon"] = [
        "name": status["name"] ?? .null, "version": status["version"] ?? .null, "protocol": status["protocol"] ?? .null,
        "root": status["root"] ?? .null, "socket": .string(socket),
      ]
      daemonLine =
        "\(Output.text(status["name"] ?? .null)) \(Output.text(status["version"] ?? .null)) (\(Output.text(status["root"] ?? .null))), protocol \(Output.text(status["protocol"] ?? .null)), at \(socket)"
    } catch let failure as CommandFailure {
      var standardError = StandardError()
      print("arborctl: no daemon's version: \(failure.message)", to: &standardError)
    }
    if printing.printedAsData(.object(client), json: connection.json) { return }
    print("arborctl \(ArborProtocol.release), protocol \(ArborProtocol.version)")
    if let daemonLine { print(daemonLine) }
  }
}

extension VersionCommand: ConnectedCommand {}
