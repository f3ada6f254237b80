import ArborLocking
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Colour and emphasis for text (ANSI SGR codes), as `--color` chooses. By default
/// (`auto`), on when the stream is a terminal, `$NO_COLOR` is not set
/// (https://no-color.org) and `$TERM` is not `dumb`; `always` colours even a pipe, `never`
/// nothing.
///
/// ```swift
/// Style.use(.always)
/// print(Style.revision("r5"), Style.path("/counters/0"))
/// ```
enum Style {
  /// Whether standard output and standard error are coloured: `auto`'s answer until
  /// ``use(_:)`` is told otherwise.
  private static let enabled = LockedState((output: allowed(on: STDOUT_FILENO), error: allowed(on: STDERR_FILENO)))

  /// Follows `--color`: once the command line is read, before the command runs.
  static func use(_ choice: ColorChoice) {
    let chosen: (output: Bool, error: Bool)
    switch choice {
    case .auto: chosen = (allowed(on: STDOUT_FILENO), allowed(on: STDERR_FILENO))
    case .always: chosen = (true, true)
    case .never: chosen = (false, false)
    }
    enabled.withLock { $0 = chosen }
  }

  /// Whether to colour standard output.
  static var isEnabled: Bool { enabled.withLock { $0.output } }

  /// Whether to colour standard error (the same rules, for its own descriptor).
  static var isEnabledOnStandardError: Bool { enabled.withLock { $0.error } }

  /// Colour on `descriptor` by default: a terminal, without `$NO_COLOR`, whose `$TERM` is not `dumb`.
  private static func allowed(on descriptor: Int32) -> Bool {
    let environment = ProcessInfo.processInfo.environment
    if environment["NO_COLOR"].map({ !$0.isEmpty }) == true { return false }
    if environment["TERM"] == "dumb" { return false }
    return isatty(descriptor) != 0
  }

  private static func wrap(_ text: String, _ code: String, enabled: Bool? = nil) -> String {
    (enabled ?? isEnabled) ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
  }

  /// A revision number or label.
  static func revision(_ text: String) -> String { wrap(text, "36") }
  /// A path in the state.
  static func path(_ text: String) -> String { wrap(text, "1") }
  /// A name: an intent, a method, a type.
  static func name(_ text: String) -> String { wrap(text, "33") }
  /// Text of less importance: times, hints, keys of a table.
  static func dim(_ text: String) -> String { wrap(text, "2") }
  /// Something added.
  static func added(_ text: String) -> String { wrap(text, "32") }
  /// Something removed.
  static func removed(_ text: String) -> String { wrap(text, "31") }
  /// An error's lead on standard error.
  static func error(_ text: String) -> String { wrap(text, "1;31", enabled: isEnabledOnStandardError) }
}
