import ArgumentParser

#if canImport(Glibc)
  import Glibc
#endif

/// How a streaming command (`watch`, `events`, `history`) prints what it receives:
/// `--output json|text|yaml`.
///
/// ```sh
/// arborctl watch /counters --output yaml
/// arborctl events --output json | jq .type     # the default when piped
/// ```
enum OutputFormat: String, CaseIterable, ExpressibleByArgument, Sendable {
  /// One compact JSON object per line (`--json` is a synonym).
  case json
  /// Text for people: on a terminal, what `arborctl` prints there by default.
  case text
  /// The same objects as JSON, in YAML: one document each, each starting with `---`.
  case yaml

  /// The format `given` by `--output`, else JSON with `--json`, else text on a terminal
  /// and JSON when standard output is not one.
  static func resolved(given: OutputFormat?, json: Bool) -> OutputFormat {
    if let given { return given }
    if json { return .json }
    return isatty(STDOUT_FILENO) != 0 ? .text : .json
  }
}

/// Options that carry `-o/--output` (``PrintOptions``, ``StreamOptions``): the format
/// chosen, and the refusal of `--json` with another format, written once.
protocol OutputChoosing {
  var output: OutputFormat? { get }
}

extension OutputChoosing {
  /// The format to print in, `--json` given or not.
  func format(json: Bool) -> OutputFormat {
    OutputFormat.resolved(given: output, json: json)
  }

  /// Refuses `--json` with another `--output` (exit 2).
  func check(json: Bool) throws {
    if json, let output, output != .json {
      throw ValidationError("--json is --output json: it cannot go with --output \(output.rawValue)")
    }
  }

  /// Whether the daemon's errors go to standard error as JSON: with `--json` or `--output json`.
  func printsErrorsAsJSON(json: Bool) -> Bool {
    json || output == .json
  }
}
