import ArborClient
import ArborJSON
import ArborRPC
import ArgumentParser
import Foundation

/// `arborctl top`: the daemon's figures (`daemon.metrics`) refreshed every interval.
struct TopCommand: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "top", abstract: "Show the daemon's figures live: requests by method, latency, intents, watches, the journal.",
    discussion: """
      Reads daemon.metrics (the figures of the HTTP listener's /metrics, over the socket) every --interval seconds and \
      shows the rates of the interval: requests per second by method with p50/p99 latency, intents per second, connections, \
      watches, resyncs, the journal's lag and transaction p99. On a terminal the screen is redrawn; piped, one JSON object \
      per interval. Stops after --count intervals, or on Ctrl-C; exits 3 when the daemon goes away (the connection is lost), 4 \
      when a sample gets no answer within --timeout (a stopped or wedged daemon), saying which on standard error.
      """)

  @Option(help: "Seconds between updates (default: 1).")
  var interval: Double = 1

  @Option(help: "Stop after this many updates (default: until Ctrl-C).")
  var count: Int?

  @OptionGroup var connection: ConnectionOptions

  func validate() throws {
    if !(interval >= 0.05 && interval.isFinite) { throw ValidationError("--interval must be at least 0.05 seconds") }
    if let count, count < 1 { throw ValidationError("--count must be 1 or more") }
  }

  func run() async throws {
    let (interval, count, json, seconds) = (self.interval, self.count, connection.printsJSON, connection.seconds)
    do {
      let path = try connection.address()
      let client = try connection.client(reconnect: .never)
      let daemon = try await connection.withTimeout(path: path) { try await client.connect() }
      defer { daemon.close() }
      let deadline = TopCallDeadline(connection: daemon, path: path, seconds: seconds)
      let name = try await deadline.call(.status)["name"]?.stringValue ?? "daemon"
      func sample() async throws -> (MetricSamples, ContinuousClock.Instant) {
        let reply = try await deadline.call(.metrics)
        return (MetricSamples(parsing: reply["text"]?.stringValue ?? ""), .now)
      }
      var (before, then) = try await sample()
      var shown = 0
      while count.map({ shown < $0 }) ?? true {
        try await Task.sleep(for: .milliseconds(Int(interval * 1000)))
        let (now, at) = try await sample()
        let elapsed = at - then
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let figures = TopFigures(name: name, now: now, before: before, seconds: seconds)
        if json {
          Output.json(figures.json)
        } else {
          // Home and clear, then the screen.
          print("\u{1B}[H\u{1B}[2J" + figures.lines.joined(separator: "\n"))
        }
        (before, then) = (now, at)
        shown += 1
      }
    } catch let failure as CommandFailure {
      throw Arborctl.fail(failure, json: connection.json)
    }
  }
}
