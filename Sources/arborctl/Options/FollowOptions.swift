import ArgumentParser

/// The options of the commands that follow the daemon (`watch`, `events`): how many
/// updates to print, and what to do when the connection is lost.
struct FollowOptions: ParsableArguments {
  @Option(help: "Stop after this many updates, for watch the first value included (default: no limit).")
  var count: Int?

  @Flag(help: "End when the connection is lost instead of waiting for the daemon to come back (exit 3).")
  var noReconnect = false

  func validate() throws {
    if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
  }
}
