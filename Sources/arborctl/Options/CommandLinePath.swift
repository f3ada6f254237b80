/// Paths on the command line: `/` is the root everywhere (`arborctl get /`, `arborctl call /
/// addButtonTapped`); on the wire the root is the JSON Pointer `""`.
///
/// ```swift
/// CommandLinePath.wire("/")            // ""
/// CommandLinePath.wire("/counters/0")  // "/counters/0"
/// ```
enum CommandLinePath {
  static func wire(_ text: String) -> String { text == "/" ? "" : text }
}
