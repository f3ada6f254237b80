import ArgumentParser

/// When to colour text: `--color auto|always|never`, on every command.
///
/// ```sh
/// arborctl history --output text --color always | less -R
/// arborctl status --color never
/// ```
enum ColorChoice: String, CaseIterable, ExpressibleByArgument, Sendable {
  /// On a terminal, without `$NO_COLOR`, when `$TERM` is not `dumb` (each stream on its own).
  case auto
  /// Always, even when piped and whatever `$NO_COLOR` and `$TERM` say.
  case always
  /// Never.
  case never
}

/// The `--color` option, shared by every command through ``ConnectionOptions``.
struct ColorOptions: ParsableArguments {
  @Option(
    name: .customLong("color"),
    help: ArgumentHelp(
      "Colour the text: auto (on a terminal, unless $NO_COLOR is set or $TERM is dumb), always (even when piped), never (default: auto). JSON and YAML are never coloured.",
      valueName: "when"))
  var choice: ColorChoice?

  /// The choice, `auto` when none was given.
  var resolved: ColorChoice { choice ?? .auto }
}
