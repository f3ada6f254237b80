import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl history [--since N] [--limit K] [--output F]`: the journalled revisions, oldest first.
struct HistoryCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history", abstract: "Show the journalled revisions: when, which intent on which target, and the patch.",
    discussion: """
      Piped, one JSON object per revision: {"revision","time","intent","target","patch"} \
      (--output yaml: the same objects as YAML documents; --output text: as on a terminal). \
      "time" is when the revision was committed; --timestamps adds "receivedAt", when arborctl received it. \
      Pages through the daemon's history.changes as needed.
      """)

  @Option(help: "Start after this revision (default: the oldest kept).")
  var since: UInt64?

  @Option(help: "Show at most this many revisions (default: 100).")
  var limit: Int?

  @OptionGroup var stream: StreamOptions

  @OptionGroup var connection: ConnectionOptions

  /// Revisions shown when `--limit` is not given.
  static let defaultLimit = 100

  func validate() throws {
    if let limit, limit < 1 { throw ValidationError("--limit must be 1 or more") }
    try stream.check(json: connection.json)
  }

  func run() async throws {
    StandardOutput.endWhenReaderGoes()
    let (since, limit, printer) = (self.since, self.limit ?? Self.defaultLimit, stream.printer(json: connection.json))
    do {
      try await connection.withConnection { connection in
        var next = since
        var shown = 0
        while shown < limit {
          var params: [String: JSONValue] = ["limit": .int(Int64(min(limit - shown, 10_000)))]
          if let next { params["since"] = .int(Int64(next)) }
          let page = try await connection.call(.historyChanges, .object(params))
          let changes = page["changes"]?.arrayValue ?? []
          let time = ReceiveTime.now()
          for change in changes { printer.print(change, time: time, timeMember: "receivedAt") { Self.text(change) } }
          shown += changes.count
          guard let following = page["next"]?.intValue, !changes.isEmpty else { break }
          next = UInt64(following)
        }
        if shown == 0, let since, !printer.quiet, let current = try? await connection.call(.status)["revision"]?.intValue, since > current {
          // Not an error (a script may ask for what came after a revision it holds), but
          // a revision from the future is worth a word where people look.
          var standardError = StandardError()
          print("arborctl: the tree is at revision \(current): nothing comes after \(since) yet", to: &standardError)
        } else if shown == 0 && printer.format == .text && !printer.quiet {
          print(Style.dim("no revisions after \(since.map(String.init) ?? "the oldest kept")"))
        }
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: stream.printsErrorsAsJSON(json: connection.json))
    }
  }

  /// `r3  17:56:00.908  incrementTapped on /counters/0/counter`, then one line per operation.
  static func text(_ change: JSONValue) -> String {
    let revision = Style.revision("r\(Output.text(change["revision"] ?? .null))")
    let time = change["time"]?.stringValue ?? ""
    let clock = time.split(separator: "T").last.map { String($0.dropLast(time.hasSuffix("Z") ? 1 : 0)) } ?? time
    var what = Style.dim("(no intent)")
    if let intent = change["intent"]?.stringValue {
      let target = change["target"]?.stringValue.map { $0.isEmpty ? "/" : $0 } ?? change["target"]?.jsonString ?? "/"
      what = "\(Style.name(intent)) on \(Style.path(target))"
    }
    var lines = ["\(revision)  \(Style.dim(clock))  \(what)"]
    if let patch = try? JSONPatch(json: change["patch"] ?? .null) {
      lines += patch.operations.map { "    " + Output.describe($0) }
    }
    return lines.joined(separator: "\n")
  }
}
