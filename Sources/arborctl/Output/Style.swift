import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Colour and emphasis for text on a terminal (ANSI SGR codes). Off when standard output
/// is not a terminal, when `$NO_COLOR` is set (https://no-color.org) or `$TERM` is `dumb`.
///
/// ```swift
/// print(Style.revision("r5"), Style.path("/counters/0"))
/// ```
enum Style {
  /// Whether to colour standard output.
  static let isEnabled = allowed(on: STDOUT_FILENO)

  /// Whether to colour standard error (the same rules, for its own descriptor).
  static let isEnabledOnStandardError = allowed(on: STDERR_FILENO)

  /// Colour on `descriptor`: a terminal, without `$NO_COLOR`, whose `$TERM` is not `dumb`.
  private static func allowed(on descriptor: Int32) -> Bool {
    let environment = ProcessInfo.processInfo.environment
    if environment["NO_COLOR"].map({ !$0.isEmpty }) == true { return false }
    if environment["TERM"] == "dumb" { return false }
    return isatty(descriptor) != 0
  }

  private static func wrap(_ text: String, _ code: String, enabled: Bool = isEnabled) -> String {
    enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
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
