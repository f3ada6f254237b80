import ArborJSON
import ArgumentParser

/// `-o/--output json|yaml|text` for the commands that print one answer (`get`, `status`,
/// `schema`, `version`): text for people even when piped, JSON on a terminal, or YAML.
///
/// ```sh
/// arborctl schema -o text | less      # the overview, not one 15 KB line
/// arborctl status -o yaml
/// ```
struct PrintOptions: ParsableArguments, OutputChoosing {
  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The format: json (one object per line, as --json), text (for people), yaml (default: text on a terminal, json when piped).",
      valueName: "format"))
  var output: OutputFormat?

  /// Prints `value` as JSON or YAML and returns true; false for text, which the command
  /// prints its own way.
  func printedAsData(_ value: JSONValue, json: Bool) -> Bool {
    switch format(json: json) {
    case .json:
      Output.json(value)
      return true
    case .yaml:
      print(YAML.document(value), terminator: "")
      return true
    case .text:
      return false
    }
  }
}
