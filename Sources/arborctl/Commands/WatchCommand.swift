import ArborClient
import ArborJSON
import ArgumentParser
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// `arborctl watch [PATH] [--since N] [--values|--patches] [--count N] [--output F]`: follows
/// the state at a path as it changes.
struct WatchCommand: FollowingCommand {
  static let configuration = CommandConfiguration(
    commandName: "watch", abstract: "Follow the state at a path as it changes.",
    discussion: """
      On a terminal the value is redrawn in place under a header with its revision (--patches: one line per operation). \
      Only what fits the terminal's height is drawn (its window size, else $LINES, else 24 rows), each line cut at its width: \
      the header stays in view, and when the value is taller, its last line says how many lines are not shown \
      (arborctl get PATH prints them all; --patches prints only what changed).

      Piped, one JSON object per line: {"revision":R,"value":V} for each revision (--patches: the first value, then {"revision":R,"patch":[...]}); \
      a value replaced as a whole carries "resync":true, a path that no longer exists "exists":false. \
      --output yaml prints the same objects as YAML documents; --output text prints each value in full, one after the other.

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

  @Option(help: "Start from this past revision: the value then, and every revision after it (default: the current revision).")
  var since: UInt64?

  @Flag var mode: Mode?

  @OptionGroup var follow: FollowOptions

  @OptionGroup var stream: StreamOptions

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    try await following { client in
      let printer = WatchPrinter(path: path, mode: mode ?? .values, stream: stream.printer(json: connection.json), onTerminal: isatty(STDOUT_FILENO) != 0)
      let watch = client.watch(path, since: since) { event in printer.connection(event) }
      let follow = self.follow
      try await connection.withFirstWithinTimeout(path: client.ssh?.description ?? client.socketPath) { arrived in
        try await follow.printEach(of: watch) { update in
          arrived()
          printer.print(update)
        }
      }
    }
  }
}
