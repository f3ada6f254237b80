import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The size of the terminal standard output is: its window size (`ioctl` `TIOCGWINSZ`),
/// else `$LINES` and `$COLUMNS`, else 24 rows of 80 columns. Asked at each redraw, so that
/// a resized window is followed from the next revision on.
///
/// ```swift
/// let size = TerminalSize.current()   // TerminalSize(rows: 50, columns: 132)
/// ```
struct TerminalSize: Equatable, Sendable {
  /// Rows of text the window shows.
  var rows: Int
  /// Characters a row holds.
  var columns: Int

  /// The size now.
  static func current() -> TerminalSize {
    var window = winsize()
    let known = ioctl(STDOUT_FILENO, UInt(TIOCGWINSZ), &window) == 0
    let environment = ProcessInfo.processInfo.environment
    func given(_ name: String, _ fallback: Int) -> Int {
      environment[name].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { $0 > 0 ? $0 : nil } ?? fallback
    }
    let rows = known && window.ws_row > 0 ? Int(window.ws_row) : given("LINES", 24)
    let columns = known && window.ws_col > 0 ? Int(window.ws_col) : given("COLUMNS", 80)
    return TerminalSize(rows: rows, columns: columns)
  }
}
