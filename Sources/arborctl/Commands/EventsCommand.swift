import ArborClient
import ArborRPC
import ArborJSON
import ArgumentParser
import Foundation

/// `arborctl events [PATH] [--type T …] [--count N] [--output F]`: prints the events models send.
struct EventsCommand: FollowingCommand {
  static let configuration = CommandConfiguration(
    commandName: "events", abstract: "Print the Codable events sent by models at or under a path.",
    discussion: """
      Piped, one JSON object per line: {"revision":R,"type":T,"source":{"id","path","type"},"event":E} \
      (--output yaml: the same objects as YAML documents; --output text: one line each, as on a terminal). \
      Events are not journalled: those sent while the daemon restarts are not seen.
      """)

  @Argument(help: "A JSON Pointer (/ is the root too); the root (every model) when absent.", completion: .custom(Completions.paths), transform: CommandLinePath.wire)
  var path: String = ""

  @Option(name: .customLong("type"), help: "Only events of this type, such as CounterRowModel.Event (repeatable; default: every type).")
  var types: [String] = []

  @OptionGroup var follow: FollowOptions

  @OptionGroup var stream: StreamOptions

  @OptionGroup var connection: ConnectionOptions

  func run() async throws {
    try await following { client in
      let printer = stream.printer(json: connection.json)
      let (text, quiet) = (printer.format == .text, printer.quiet)
      let path = self.path
      // Events come from models at or under the path; when nothing is there yet, say so
      // (on standard error, piped or not) rather than wait in silence.
      let exists = try await connection.withConnection { connection -> Bool in
        do {
          _ = try await connection.call(.stateGet, ["path": .string(path)])
          return true
        } catch ArborClientError.daemon(let error) where error.is(.pathNotFound) {
          return false
        }
      }
      if !exists && !quiet {
        Self.note("nothing is at \(path) now: waiting for events of the models that come there (Ctrl-C to stop)")
      }
      let (follow, types) = (self.follow, self.types)
      try await connection.withFirstWithinTimeout(path: client.ssh?.description ?? client.socketPath) { arrived in
        let events = client.events(path, types: types.isEmpty ? nil : types) { event in
          switch event {
          case .subscribed:
            arrived()
            if text && exists && !quiet { Self.note("watching events at \(path.isEmpty ? "/" : path) (Ctrl-C to stop)") }
          case .lost(let error): if !quiet { Self.note("connection lost (\(error)); reconnecting…") }
          }
        }
        try await follow.printEach(of: events) { event in
          printer.print(Self.line(event), time: ReceiveTime.now()) { Self.text(event) }
        }
      }
    }
  }

  static func line(_ event: ReceivedEvent) -> JSONValue {
    [
      "revision": .int(Int64(event.revision)), "type": .string(event.type), "event": event.event,
      "source": ["id": .string(event.sourceID), "path": .string(event.sourcePath), "type": .string(event.sourceType)],
    ]
  }

  static func text(_ event: ReceivedEvent) -> String {
    "\(Style.revision("r\(event.revision)"))  \(Style.path(event.sourcePath.isEmpty ? "/" : event.sourcePath))  \(Style.name(event.type))  \(event.event.jsonString)"
  }

  static func note(_ text: String) {
    var standardError = StandardError()
    print(Style.dim("arborctl: \(text)"), to: &standardError)
  }
}
