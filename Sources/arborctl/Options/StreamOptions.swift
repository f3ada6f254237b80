import ArgumentParser

/// The options of the commands that print a stream of updates (`watch`, `events`,
/// `history`): in which format, with the time each one was received, or nothing at all.
///
/// ```sh
/// arborctl watch /counters/0/counter/count --timestamps
/// arborctl watch /counters --count 2 --quiet && echo "the counters changed"
/// ```
struct StreamOptions: ParsableArguments, OutputChoosing {
  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "The format: json (one object per line, as --json), text (for people), yaml (one document per object, each after ---) (default: text on a terminal, json when piped).",
      valueName: "format"))
  var output: OutputFormat?

  @Flag(help: "Prefix each update with the local time it was received (RFC 3339, milliseconds); in JSON and YAML, a \"time\" member instead (\"receivedAt\" for history, whose \"time\" is the commit's).")
  var timestamps = false

  @Flag(name: [.short, .long], help: "Print nothing but errors; the exit status still says how it ended (with --count: wait until that many updates have come).")
  var quiet = false

  /// The printer of this command's records.
  func printer(json: Bool) -> StreamPrinter {
    StreamPrinter(format: format(json: json), timestamps: timestamps, quiet: quiet)
  }
}
