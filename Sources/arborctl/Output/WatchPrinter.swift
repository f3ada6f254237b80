import ArborLocking
import ArborClient
import ArborJSON
import Foundation

/// Prints a state watch as `--output` says: JSON lines or YAML documents for programs;
/// text for people. On a terminal, the value is redrawn in place under a header with its
/// revision, as much of it as fits the window (or, with --patches, one line per
/// operation); elsewhere, text is appended.
final class WatchPrinter: Sendable {
  private struct Drawn {
    /// Lines the last redraw wrote, to move back over.
    var lines = 0
    /// The last update drawn, and when it came: drawn again when the connection's status changes.
    var last: (update: StateUpdate, time: String)?
    var status: String?
    var lost = false
  }

  private let path: String
  private let mode: WatchCommand.Mode
  private let stream: StreamPrinter
  /// Whether the value is redrawn in place (text, on a terminal, --values).
  private let redraws: Bool
  private let drawn = LockedState(Drawn())

  /// A printer of the watch of `path` (its wire form), `onTerminal` when standard output is one.
  init(path: String, mode: WatchCommand.Mode, stream: StreamPrinter, onTerminal: Bool) {
    self.path = path
    self.mode = mode
    self.stream = stream
    self.redraws = stream.format == .text && onTerminal && mode == .values
  }

  /// The watched path as typed: `/` for the root.
  private var shownPath: String { path.isEmpty ? "/" : path }

  /// Prints `update`, received just now.
  func print(_ update: StateUpdate) {
    guard !stream.quiet else { return }
    let time = ReceiveTime.now()
    if redraws { return redraw(with: update, time: time) }
    stream.print(Self.line(update, mode: mode), time: time) {
      switch (mode, update.kind) {
      case (.patches, .patch(let patch)):
        let label = Style.revision("r\(update.revision)")
        return patch.operations.map { "\(label)  \(Output.describe($0, prefix: path))" }.joined(separator: "\n")
      case (.patches, _):
        let what = update.kind == .resync ? "resync at revision" : "revision"
        return "\(Style.revision("\(what) \(update.revision)")) \(Style.path(shownPath))\n\(Self.text(update.value))"
      case (.values, _):
        let resync = update.kind == .resync ? Style.dim("  (resync)") : ""
        return "\(Style.revision("revision \(update.revision)"))  \(Style.path(shownPath))\(resync)\n\(Self.text(update.value))"
      }
    }
  }

  /// A lost or resumed connection: shown in the header when the value is redrawn in place,
  /// on standard error otherwise (not with --quiet).
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
    guard let message, !stream.quiet else { return }
    if !redraws {
      var standardError = StandardError()
      Swift.print(Style.dim("arborctl: \(message)"), to: &standardError)
    } else if let last = drawn.withLock({ $0.last }) {
      redraw(with: last.update, time: last.time)
    }
  }

  /// The JSON object for an update.
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
  private func redraw(with update: StateUpdate, time: String) {
    drawn.withLock { drawn in
      let status = drawn.status.map { "  " + Style.removed($0) } ?? Style.dim("  (Ctrl-C to stop)")
      var header = "\(Style.revision("revision \(update.revision)"))  \(Style.path(shownPath))\(status)"
      if stream.timestamps { header = Style.dim(time) + "  " + header }
      let frame = Self.frame(header: header, value: Self.text(update.value), path: shownPath, size: TerminalSize.current())
      // CSI n F: up n lines, to their start; CSI J: erase from there to the end.
      let back = drawn.lines > 0 ? "\u{1B}[\(drawn.lines)F\u{1B}[J" : ""
      Output.write(back + frame.text)
      drawn.lines = frame.lines
      drawn.last = (update, time)
    }
  }

  /// What is drawn on a terminal of `size`: the header, as many lines of `value` as fit
  /// under it, and, when some do not, a last line that says how many. Each line is cut at
  /// the terminal's width and drawn with auto-wrap off, so that it takes one row: a
  /// drawing never scrolls its header away, and its size does not grow with the value's.
  ///
  /// The cursor ends on the row under the last line, which counts too: a 10-row terminal
  /// shows the header, 7 lines of the value and the count.
  static func frame(header: String, value: String, path: String, size: TerminalSize) -> (text: String, lines: Int) {
    let rows = max(size.rows - 1, 1)
    let columns = max(size.columns, 1)
    var shown: [Substring] = []
    var hidden = 0
    var rest = Substring(value)
    // Only the lines shown are split off; the others are only counted.
    while true {
      let end = rest.firstIndex(of: "\n")
      let line = rest[..<(end ?? rest.endIndex)]
      if 1 + shown.count < rows {
        shown.append(line)
      } else {
        hidden += 1
      }
      guard let end else { break }
      rest = rest[rest.index(after: end)...]
      if hidden > 0 {
        hidden += rest.utf8.reduce(0) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 } + 1
        break
      }
    }
    var lines = [header]
    if hidden == 0 {
      lines += shown.map { String($0.prefix(columns)) }
    } else if rows >= 2 {
      // The count takes the place of the last line that would have fitted.
      let room = rows - 2
      let more = hidden + shown.count - room
      lines += shown.prefix(room).map { String($0.prefix(columns)) }
      lines.append(Style.dim(String("… \(grouped(more)) more lines (arborctl get \(path), or --patches)".prefix(columns))))
    }
    // CSI ?7l: auto-wrap off while drawing; CSI ?7h: on again once drawn.
    return ("\u{1B}[?7l" + lines.joined(separator: "\n") + "\n\u{1B}[?7h", lines.count)
  }

  /// `29950` as `29,950`.
  static func grouped(_ number: Int) -> String {
    var digits = String(number)
    var groups: [String] = []
    while digits.count > 3 {
      groups.insert(String(digits.suffix(3)), at: 0)
      digits.removeLast(3)
    }
    groups.insert(digits, at: 0)
    return groups.joined(separator: ",")
  }
}
