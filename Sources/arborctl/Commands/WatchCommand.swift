import ArborClient
import ArborJSON
import ArgumentParser
import Foundation

/// `arborctl watch [PATH] [--since N] [--values|--patches] [--count N]`: follows the state
/// at a path as it changes.
struct WatchCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Follow the state at a path as it changes.",
    discussion: """
      On a terminal the value is redrawn in place with its revision (--patches: one line per operation). \
      Piped, one JSON object per line: {"revision":R,"value":V} for each revision (--patches: the first value, then {"revision":R,"patch":[…]}); \
      a value replaced as a whole carries "resync":true, a path that no longer exists "exists":false.

      A daemon that restarts is waited for and the watch resumes where it was, with no revision missed or repeated (--no-reconnect ends it instead, exit 3).
      """)

  enum Mode: String, EnumerableFlag {
    case values, patches
    static func help(for value: Mode) -> ArgumentHelp? {
      switch value {
      case .values: return "Print the whole value after each revision (the default)."
      case .patches: return "Print each revision's JSON Patch (paths relative to PATH)."
      }
    }
  }

  @Argument(help: "A JSON Pointer (/ is the root too); the root when absent.", completion: .custom(Completions.paths), transform: CommandLinePath.wire)
  var path: String = ""

  @Option(help: "Start from this past revision: the value then, and every revision after it.")
  var since: UInt64?

  @Flag var mode: Mode = .values

  @OptionGroup var follow: FollowOptions

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    StandardOutput.endWhenReaderGoes()
    do {
      let client = try connection.client(reconnect: !follow.noReconnect)
      let printer = WatchPrinter(path: path, mode: mode, json: connection.printsJSON)
      let watch = client.watch(path, since: since) { event in printer.connection(event) }
      let count = follow.count
      try await connection.withFirstWithinTimeout(path: client.socketPath) { arrived in
        var printed = 0
        for try await update in watch {
          arrived()
          printer.print(update)
          printed += 1
          if let count, printed >= count { return }
        }
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    } catch let error as ArborClientError {
      throw Arborctl.fail(CommandFailure(error), json: connection.json)
    }
  }
}
