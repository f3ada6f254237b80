import ArgumentParser

/// Paths on the command line: `/` is the root everywhere (`arborctl get /`, `arborctl call /
/// addButtonTapped`); on the wire the root is the JSON Pointer `""`. A path that does not
/// start with `/` is a usage error (exit 2) that names the path probably meant.
///
/// ```swift
/// try CommandLinePath.wire("/")            // ""
/// try CommandLinePath.wire("/counters/0")  // "/counters/0"
/// try CommandLinePath.wire("counters/0")   // error: … (did you mean /counters/0?)
/// ```
enum CommandLinePath {
  static func wire(_ text: String) throws -> String {
    if text == "/" || text.isEmpty { return "" }
    guard text.hasPrefix("/") else {
      throw ValidationError("'\(text)' is not a path: paths start with / (did you mean /\(text)?)")
    }
    return text
  }
}
