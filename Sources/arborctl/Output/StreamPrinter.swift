import ArborJSON

/// Prints the records of a stream (`watch`, `events`, `history`) as `--output`,
/// `--timestamps` and `--quiet` say: one JSON object per line, one YAML document each, or
/// text; with the receive time as a member or before each line of text; or nothing.
///
/// ```swift
/// let printer = StreamPrinter(format: .yaml, timestamps: true, quiet: false)
/// printer.print(["revision": 3, "value": 1], time: ReceiveTime.now()) { "revision 3" }
/// // ---
/// // revision: 3
/// // time: "2026-11-25T10:15:00.123+01:00"
/// // value: 1
/// ```
struct StreamPrinter: Sendable {
  var format: OutputFormat
  var timestamps: Bool
  var quiet: Bool

  /// Prints one record received at `time`: `object` in JSON or YAML (with `timeMember` set
  /// to `time` when --timestamps), or `text()` (each line after `time` when --timestamps; nothing when it is empty).
  func print(_ object: @autoclosure () -> JSONValue, time: String, timeMember: String = "time", text: () -> String) {
    guard !quiet else { return }
    switch format {
    case .json: Output.write(stamped(object(), time: time, member: timeMember).jsonString + "\n")
    case .yaml: Output.write(YAML.document(stamped(object(), time: time, member: timeMember)))
    case .text:
      let text = text()
      if !text.isEmpty { Output.write(stamped(text, time: time) + "\n") }
    }
  }

  /// `object` with `member` set to `time`, when --timestamps.
  func stamped(_ object: JSONValue, time: String, member: String) -> JSONValue {
    guard timestamps, case .object(var members) = object else { return object }
    members[member] = .string(time)
    return .object(members)
  }

  /// Each line of `text` after `time` (dimmed), when --timestamps.
  func stamped(_ text: String, time: String) -> String {
    guard timestamps else { return text }
    let prefix = Style.dim(time) + "  "
    return text.split(separator: "\n", omittingEmptySubsequences: false).map { prefix + $0 }.joined(separator: "\n")
  }
}
