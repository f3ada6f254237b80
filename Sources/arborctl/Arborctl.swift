import ArborRPC
import ArgumentParser
import Foundation

/// `arborctl`: talks to an Arbor daemon over its socket.
///
/// ```sh
/// arborctl status
/// arborctl call /counters/0/counter incrementTapped
/// arborctl get /counters | jq .
/// ```
@main
struct Arborctl: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "arborctl",
    abstract: "Talk to an Arbor daemon over its Unix socket.",
    discussion: """
      Output is aligned text on a terminal, and one JSON object per line when standard output is not a terminal or with --json.

      Exit codes: 0 ok, 1 the daemon answered with an error, 2 usage, 3 cannot connect, 4 timeout, 5 permission denied.
      """,
    version: "arborctl \(ArborProtocol.release), protocol \(ArborProtocol.version)",
    subcommands: [
      StatusCommand.self, PingCommand.self, GetCommand.self, CallCommand.self, WatchCommand.self, EventsCommand.self, HistoryCommand.self, AtCommand.self,
      SnapshotCommand.self, UndoCommand.self, RedoCommand.self, SchemaCommand.self, RPCCommand.self, BenchCommand.self,
    ])

  /// Runs the command; a usage error exits 2 (argument-parser's own code is 64).
  static func main() async {
    StandardOutput.prepare()
    do {
      var command = try await asyncParseAsRoot(LeadingOptions.moved(Array(CommandLine.arguments.dropFirst())))
      if var command = command as? any AsyncParsableCommand {
        try await command.run()
      } else {
        try command.run()
      }
    } catch {
      let code = exitCode(for: error)
      if code == .validationFailure {
        var standardError = StandardError()
        print(fullMessage(for: error), to: &standardError)
        Foundation.exit(CommandFailure.Code.usage.rawValue)
      }
      exit(withError: error)
    }
  }
}

extension Arborctl {
  /// Prints a failure on standard error (as JSON with --json, for the daemon's errors;
  /// readable text otherwise, even when standard output is piped) and
  /// returns the exit code to throw.
  static func fail(_ failure: CommandFailure, json: Bool) -> ExitCode {
    var standardError = StandardError()
    if json, let error = failure.rpcError {
      print(error.json.jsonString, to: &standardError)
    } else {
      print("\(Style.error("arborctl:")) \(failure.message)", to: &standardError)
    }
    return failure.exitCode
  }
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
  mutating func write(_ string: String) {
    FileHandle.standardError.write(Data(string.utf8))
  }
}
