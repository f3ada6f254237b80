import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// `arborctl bench` against a real daemon: one JSON object when piped, exactly the
/// requests asked for (pipelined), the daemon's error before any load, a table on a terminal.
@Suite(.startsProcesses) struct BenchCommandTests {
  /// The revision and the count of the first counter, read with `arborctl get`.
  static func counter(_ socket: String) async throws -> (revision: Int64, count: Int64) {
    let reply = try await ArborctlTests.arborctl(["get", "/counters/0/counter/count"], socket: socket)
    let revision = try #require(reply.json?["revision"]?.intValue, "\(reply.output)\(reply.error)")
    let count = try #require(reply.json?["value"]?.intValue, "\(reply.output)\(reply.error)")
    return (revision, count)
  }

  @Test func pipedItPrintsOneJSONObjectAndSendsExactlyTheRequestsAskedFor() async throws {
    try await withDaemon { daemon, _ in
      let added = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      #expect(added.status == .exited(0), "\(added.error)")
      let before = try await Self.counter(daemon.socket)

      let bench = try await ArborctlTests.arborctl(["bench", "-c", "2", "-n", "200", "-P", "4", "--target", "/counters/0/counter", "--intent", "incrementTapped"], socket: daemon.socket)
      #expect(bench.status == .exited(0), "\(bench.error)")
      #expect(bench.output.split(separator: "\n").count == 1, "one line: \(bench.output)")
      #expect(bench.error.isEmpty, "no progress when not on a terminal: \(bench.error)")
      let figures = try #require(bench.json, "\(bench.output)")
      #expect(figures["clients"] == 2)
      #expect(figures["pipeline"] == 4)
      #expect(figures["requests"] == 200)
      #expect(figures["method"] == "intent.call")
      #expect(figures["target"] == "/counters/0/counter")
      #expect(figures["intent"] == "incrementTapped")
      let rps = try #require(figures["rps"]?.doubleValue)
      let seconds = try #require(figures["seconds"]?.doubleValue)
      #expect(rps > 0 && seconds > 0, "\(figures)")
      let latencies = ["p50Ms", "p95Ms", "p99Ms", "maxMs"].compactMap { figures[$0]?.doubleValue }
      #expect(latencies.count == 4, "\(figures)")
      #expect(latencies == latencies.sorted() && latencies[0] > 0, "p50 ≤ p95 ≤ p99 ≤ max: \(figures)")

      // Every request is one intent, one revision: the check call and the 199 pipelined.
      let after = try await Self.counter(daemon.socket)
      #expect(after.revision - before.revision == 200)
      #expect(after.count - before.count == 200)
    }
  }

  @Test func anUnknownIntentExitsOneWithTheDaemonsErrorBeforeAnyLoad() async throws {
    try await withDaemon { daemon, _ in
      _ = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let before = try await Self.counter(daemon.socket)
      let unknown = try await ArborctlTests.arborctl(["bench", "--target", "/counters/0/counter", "--intent", "explode", "-n", "1000"], socket: daemon.socket)
      #expect(unknown.status == .exited(1))
      #expect(unknown.error.contains("CounterModel has no intent 'explode'"), "\(unknown.error)")
      #expect(unknown.output.isEmpty, "\(unknown.output)")
      let missing = try await ArborctlTests.arborctl(["bench", "--target", "/counters/7/counter", "-n", "1000"], socket: daemon.socket)
      #expect(missing.status == .exited(1), "\(missing.error)")
      let after = try await Self.counter(daemon.socket)
      #expect(after.revision == before.revision && after.count == before.count, "no load after a failed check")
      let usage = try await ArborctlTests.arborctl(["bench", "-P", "0"], socket: daemon.socket)
      #expect(usage.status == .exited(2), "\(usage.error)")
      let noIntent = try await ArborctlTests.arborctl(["bench", "--method", "intent.call"], socket: daemon.socket)
      #expect(noIntent.status == .exited(2) && noIntent.error.contains("needs --intent NAME"), "\(noIntent.error)")
    }
  }

  @Test func byDefaultItReadsAndChangesNothing() async throws {
    try await withDaemon { daemon, _ in
      _ = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let before = try await Self.counter(daemon.socket)
      let bench = try await ArborctlTests.arborctl(["bench", "-c", "2", "-n", "500"], socket: daemon.socket)
      #expect(bench.status == .exited(0), "\(bench.error)")
      #expect(bench.json?["method"] == "state.get" && bench.json?["target"] == "/", "\(bench.output)")
      let after = try await Self.counter(daemon.socket)
      #expect(after.revision == before.revision, "a default bench wrote to the live state")
    }
  }

  @Test func onATerminalItShowsProgressThenATable() async throws {
    try await withDaemon { daemon, _ in
      _ = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      // `script` gives arborctl a terminal (a pty) for its standard output and error. The
      // progress line is drawn at the first reply and erased at the end, so a short load
      // shows it: 500 requests, not 5,000, which a loaded machine's debug daemon did not
      // serve within the deadline.
      let result = try await withDeadline("arborctl bench on a terminal") {
        try await run(
          .name("script"), arguments: ["-qec", "\(ArborctlTests.binary()) bench -c 3 -n 500 -P 2", "/dev/null"],
          environment: .inherit.updating(["ARBOR_SOCKET": daemon.socket]), output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
      }
      #expect(result.terminationStatus == .exited(0), "\(result.standardOutput)")
      let output = result.standardOutput
      // The progress line is redrawn in place, then erased: \r … ESC[K.
      #expect(output.contains("\r") && output.contains("\u{1B}[K"), "\(output.debugDescription)")
      // A terminal ends its lines with \r\n; drop what the erased progress left before them.
      let lines = output.split(whereSeparator: \.isNewline).map { line in
        String(line.split(separator: "\u{1B}[K", omittingEmptySubsequences: false).last ?? "")
      }.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
      let header = try #require(lines.firstIndex { $0.contains("requests/s") }, "\(lines)")
      #expect(header + 1 < lines.count, "a row under the header: \(lines)")
      guard header + 1 < lines.count else { return }
      let columns = lines[header].split(separator: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
      #expect(columns == ["clients", "pipeline", "requests", "seconds", "requests/s", "p50 ms", "p95 ms", "p99 ms", "max ms"], "\(lines)")
      let values = lines[header + 1].split(separator: " ").map(String.init)
      #expect(values.count == 9, "\(lines)")
      #expect(Array(values.prefix(3)) == ["3", "2", "500"], "\(lines)")
      #expect(values.dropFirst(3).allSatisfy { Double($0) != nil }, "\(lines)")
      // Aligned: each value ends in the column where its header ends.
      func ends(_ line: String) -> [Int] {
        let characters = Array(line)
        return characters.indices.filter { characters[$0] != " " && ($0 + 1 == characters.count || characters[$0 + 1] == " ") }
      }
      let headerEnds = ends(lines[header]).filter { index in
        // "p50 ms": only the end of the whole header, not of "p50".
        !(index + 2 < lines[header].count && Array(lines[header])[index + 2] != " ")
      }
      #expect(headerEnds == ends(lines[header + 1]), "\(lines[header])\n\(lines[header + 1])")
    }
  }
}
