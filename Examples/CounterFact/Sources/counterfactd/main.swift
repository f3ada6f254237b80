import ArborDaemon
import ArgumentParser
import CounterFact

/// The CounterFact tree hosted as a daemon: `counterfactd --socket /tmp/cf.sock`.
@main
struct Counterfactd: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "counterfactd",
    abstract: "Hosts the CounterFact models and serves them over JSON-RPC 2.0 on a Unix socket.")

  @OptionGroup var options: DaemonOptions

  func run() async throws {
    try await ArborDaemon(name: "counterfactd", options: options) { AppModel() }.run()
  }
}
