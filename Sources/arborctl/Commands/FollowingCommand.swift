import ArborClient
import ArgumentParser

/// A command that follows the daemon and prints what comes (`watch`, `events`): their
/// shared options, their validation, and the run that reports failures as arborctl does.
protocol FollowingCommand: AsyncParsableCommand {
  var follow: FollowOptions { get }
  var stream: StreamOptions { get }
  var connection: ConnectionOptions { get }
}

extension FollowingCommand {
  func validate() throws {
    try stream.check(json: connection.json)
  }

  /// Runs `body` with a client of the daemon that reconnects unless `--no-reconnect`; a
  /// failure ends the command with its exit status, as JSON when the output is.
  func following(_ body: (ArborClient) async throws -> Void) async throws {
    StandardOutput.endWhenReaderGoes()
    do {
      try await body(try connection.client(reconnect: !follow.noReconnect))
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: stream.printsErrorsAsJSON(json: connection.json))
    } catch let error as ArborClientError {
      throw Arborctl.fail(CommandFailure(error), json: stream.printsErrorsAsJSON(json: connection.json))
    }
  }
}

extension FollowOptions {
  /// Calls `print` with each element of `updates` until `--count` of them are printed, or
  /// until they end.
  func printEach<Updates: AsyncSequence>(of updates: Updates, _ print: (Updates.Element) -> Void) async throws {
    var printed = 0
    for try await update in updates {
      print(update)
      printed += 1
      if let count, printed >= count { return }
    }
  }
}
