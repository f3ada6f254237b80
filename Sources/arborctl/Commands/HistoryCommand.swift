import ArborJSON
import ArborRPC
import ArgumentParser

/// `arborctl history [--since N] [--limit K]`: the journalled revisions, oldest first.
struct HistoryCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "history", abstract: "Show the journalled revisions: when, which intent on which target, and the patch.",
    discussion: """
      Piped, one JSON object per revision: {"revision","time","intent","target","patch"}. \
      Pages through the daemon's history.changes as needed.
      """)

  @Option(help: "Start after this revision (default: the oldest kept).")
  var since: UInt64?

  @Option(help: "Show at most this many revisions.")
  var limit: Int = 100

  @OptionGroup var connection: ConnectionOptions

  func validate() throws {
    if limit < 1 { throw ValidationError("--limit must be 1 or more") }
  }

  func run() async throws {
    StandardOutput.endWhenReaderGoes()
    let (since, limit, json) = (self.since, self.limit, connection.printsJSON)
    do {
      try await connection.withConnection { connection in
        var next = since
        var shown = 0
        while shown < limit {
          var params: [String: JSONValue] = ["limit": .int(Int64(min(limit - shown, 10_000)))]
          if let next { params["since"] = .int(Int64(next)) }
          let page = try await connection.call(.historyChanges, .object(params))
          let changes = page["changes"]?.arrayValue ?? []
          for change in changes { Output.write((json ? change.jsonString : Self.text(change)) + "\n") }
          shown += changes.count
          guard let following = page["next"]?.intValue, !changes.isEmpty else { break }
          next = UInt64(following)
        }
        if shown == 0 && !json { print(Style.dim("no revisions after \(since.map(String.init) ?? "the oldest kept")")) }
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
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
