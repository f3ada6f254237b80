import Arbor
import ArborDaemon
import ArborSystemd
import ArgumentParser
import Foundation
import Logging

/// A model that can misbehave on purpose, for the daemon's tests.
@Model struct FixtureModel {
  var value = 0

  /// Holds the tree's lock for `milliseconds` (a blocking sleep inside a transaction): a
  /// wedged tree, as a model with a bug would wedge it.
  @Intent func hold(milliseconds: Int) {
    node.transaction {
      value += 1
      usleep(UInt32(max(0, milliseconds)) * 1_000)
    }
  }

  /// Waits, without holding anything, until a file exists at `path` (the test creates it),
  /// then adds 100: an `async` intent still running when the daemon is asked to stop.
  @Intent func finishWhenFileExists(path: String) async {
    while !FileManager.default.fileExists(atPath: path) {
      try? await Task.sleep(for: .milliseconds(5))
    }
    value += 100
  }
}

/// `arbor-fixture-daemon`: `FixtureModel` hosted by `ArborDaemon`, with the daemon's options.
@main
struct FixtureDaemon: AsyncParsableCommand {
  static let configuration = CommandConfiguration(commandName: "arbor-fixture-daemon", abstract: "A daemon for Arbor's tests.")

  @OptionGroup var options: DaemonOptions

  @Option(help: "A message to log at start (notice), with itself as the metadata value 'note', through the handler the daemon picks.")
  var say: String?

  func run() async throws {
    if let say {
      let logger = Logger(label: "arbor-fixture") { JournaldLogHandler.forStandardError(label: $0, identifier: "arbor-fixture") }
      logger.notice("\(say)", metadata: ["note": "\(say)"])
    }
    try await ArborDaemon(name: "arbor-fixture", options: options) { FixtureModel() }.run()
  }
}
