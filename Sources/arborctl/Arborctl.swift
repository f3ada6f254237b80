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
    abstract: "Talk to an Arbor daemon over its Unix socket, or through ssh (--host ssh://user@host).",
    discussion: """
      Output is aligned text on a terminal, and one JSON object per line when standard output is not a terminal or with --json; \
      -o/--output json|yaml|text chooses (get, status, schema, version, watch, events, history). \
      watch, events and history add the time each update came (--timestamps), or print nothing but errors (-q). \
      Colour follows --color (default auto: on a terminal, unless $NO_COLOR is set or $TERM is dumb).

      Options of every command (they may come before the command too):
        --socket <socket>   the daemon's socket (default: $ARBOR_SOCKET, else the
                            only socket in the daemons' default folder)
        --host <ssh-address>  a daemon on another machine, through ssh:
                            ssh://[user@]host[:port][/path/to.sock] (default:
                            $ARBOR_HOST); runs `ssh … host -- arborctl bridge`
                            ($ARBOR_SSH_COMMAND, $ARBOR_REMOTE_ARBORCTL)
        --timeout <seconds> how long to wait for the daemon, also while it starts
                            (default: 10)
        --json, -o <format> the output format; --color <when>; --timestamps; -q

      Examples:
        arborctl status
        arborctl get /counters/0/counter/count
        arborctl call /counters/0/counter incrementTapped
        arborctl call / removeButtonTapped id='"72c769dae94f5354"'
        arborctl watch /counters -o yaml
        arborctl history --since 10 | jq .intent
        arborctl schema incrementTapped
        arborctl --host ssh://ops@build-1 watch /counters

      Exit codes (the same for every command):
        0  ok; also when the reader of a pipe goes away (arborctl history | head -1)
        1  the daemon answered with an error (an unknown intent or path, nothing
           to undo, a refused snapshot) or a reply that could not be used;
           standard output could not be written
        2  usage: a missing or mistyped argument, option or value (--output xml,
           --color sometimes); a snapshot file that cannot be read, is not JSON
           or cannot be written
        3  cannot connect: nothing listens on the socket (within --timeout), or it
           is not one; a watch or events with --no-reconnect, or top, whose
           daemon went away; through --host, ssh that cannot log in or that
           ended (the message names the host and gives ssh's last line)
        4  timeout: no answer within --timeout (watch and events: no first value
           or subscription within it; top: to each sample)
        5  permission denied: the socket's mode, or the daemon's role check
        130  stopped by Ctrl-C (SIGINT), as a shell reports it
      """,
    version: "arborctl \(ArborProtocol.release), protocol \(ArborProtocol.version)",
    subcommands: [
      StatusCommand.self, PingCommand.self, GetCommand.self, CallCommand.self, WatchCommand.self, EventsCommand.self, HistoryCommand.self, AtCommand.self,
      SnapshotCommand.self, UndoCommand.self, RedoCommand.self, SchemaCommand.self, RPCCommand.self, BenchCommand.self, TopCommand.self, VersionCommand.self,
      UpgradeCommand.self, BridgeCommand.self,
    ])

  /// Runs the command; a usage error exits 2 (argument-parser's own code is 64).
  static func main() async {
    StandardOutput.prepare()
    do {
      let arguments = LeadingOptions.moved(Array(CommandLine.arguments.dropFirst()))
      refuseNegativeRevision(arguments)
      var command = try await asyncParseAsRoot(arguments)
      Style.use(colorChoice(of: command))
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
  /// `arborctl at -1 /`: the parser would take `-1` for an option and blame the path;
  /// the revision is what is wrong, and the message says so.
  static func refuseNegativeRevision(_ arguments: [String]) {
    guard arguments.count > 1, arguments[0] == "at", arguments[1].count > 1, arguments[1].first == "-",
      arguments[1].dropFirst().allSatisfy(\.isNumber)
    else { return }
    var standardError = StandardError()
    print(
      "\(Style.error("arborctl:")) a revision is a number from 0 up, not \(arguments[1]): `arborctl status` gives the current one (revision) and the oldest kept (journal.oldestRevision)",
      to: &standardError)
    Foundation.exit(CommandFailure.Code.usage.rawValue)
  }

  /// The command's `--color`: `auto` for the commands without the shared options.
  static func colorChoice(of command: any ParsableCommand) -> ColorChoice {
    (command as? any ConnectedCommand)?.connection.color.resolved ?? .auto
  }

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
