import ArborDaemon
import ArgumentParser
import Thermostat

/// The Thermostat tree hosted as a daemon: `thermostatd --socket /tmp/thermostat.sock`.
@main
struct Thermostatd: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "thermostatd",
    abstract: "Hosts a Thermostat model and serves it over JSON-RPC 2.0 on a Unix socket.")

  @OptionGroup var options: DaemonOptions

  func run() async throws {
    try await ArborDaemon(name: "thermostatd", options: options) { Thermostat() }.run()
  }
}
