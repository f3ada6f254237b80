import ArborClient
import ArborJSON
import Foundation
import Synchronization

/// Prints a state watch: JSON lines for programs; on a terminal, the value redrawn in
/// place under a header with its revision (or, with --patches, one line per operation).
final class WatchPrinter: Sendable {
  private struct Drawn {
    /// Lines the last redraw wrote, to move back over.
    var lines = 0
    var last: StateUpdate?
    var status: String?
    var lost = false
  }

  private let path: String
  private let mode: WatchCommand.Mode
  private let json: Bool
  private let drawn = Mutex(Drawn())

  init(path: String, mode: WatchCommand.Mode, json: Bool) {
    self.path = path
    self.mode = mode
    self.json = json
  }

  func print(_ update: StateUpdate) {
    if json { return Output.write(Self.line(update, mode: mode).jsonString + "\n") }
    switch (mode, update.kind) {
    case (.values, _): redraw(with: update)
    case (.patches, .patch(let patch)):
      let label = Style.revision("r\(update.revision)")
      Output.write(patch.operations.map { "\(label)  \(Output.describe($0, prefix: path))\n" }.joined())
    case (.patches, .initial), (.patches, .resync):
      let what = update.kind == .resync ? "resync at revision" : "revision"
      Output.write("\(Style.revision("\(what) \(update.revision)")) \(Style.path(path.isEmpty ? "/" : path))\n\(Self.text(update.value))\n")
    }
  }

  /// A lost or resumed connection: shown in the header on a terminal, on standard error otherwise.
  func connection(_ event: WatchConnectionEvent) {
    let message: String? = drawn.withLock { drawn in
      switch event {
      case .lost(let error):
        if drawn.lost { return nil }
        drawn.lost = true
        drawn.status = "connection lost (\(error.description.prefix(60))); reconnecting…"
        return drawn.status
      case .subscribed(let revision):
        guard drawn.lost else { return nil }
        drawn.lost = false
        drawn.status = nil
        return "resumed from revision \(revision)"
      }
    }
    guard let message else { return }
    if json || mode == .patches {
      var standardError = StandardError()
      Swift.print(Style.dim("arborctl: \(message)"), to: &standardError)
    } else if let last = drawn.withLock({ $0.last }) {
      redraw(with: last)
    }
  }

  /// The JSON line for an update.
  static func line(_ update: StateUpdate, mode: WatchCommand.Mode) -> JSONValue {
    var members: [String: JSONValue] = ["revision": .int(Int64(update.revision))]
    if mode == .patches, case .patch(let patch) = update.kind {
      members["patch"] = Output.json(patch)
    } else {
      members["value"] = update.value ?? .null
    }
    if update.value == nil { members["exists"] = false }
    if update.kind == .resync { members["resync"] = true }
    return .object(members)
  }

  private static func text(_ value: JSONValue?) -> String {
    value.map(Output.prettyString) ?? Style.dim("(nothing at this path)")
  }

  /// Moves back over the last drawing and draws `update` in its place.
  private func redraw(with update: StateUpdate) {
    drawn.withLock { drawn in
      let status = drawn.status.map { "  " + Style.removed($0) } ?? Style.dim("  (Ctrl-C to stop)")
      let header = "\(Style.revision("revision \(update.revision)"))  \(Style.path(path.isEmpty ? "/" : path))\(status)"
      let text = header + "\n" + Self.text(update.value) + "\n"
      // CSI n F: up n lines, to their start; CSI J: erase from there to the end.
      let back = drawn.lines > 0 ? "\u{1B}[\(drawn.lines)F\u{1B}[J" : ""
      Output.write(back + text)
      drawn.lines = text.reduce(0) { $1 == "\n" ? $0 + 1 : $0 }
      drawn.last = update
    }
  }
}
