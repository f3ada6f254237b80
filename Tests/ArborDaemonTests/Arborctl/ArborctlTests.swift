import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// `arborctl` against a real daemon: JSON lines when its output is not a terminal, the
/// parameters read as JSON when they are JSON, and an exit code for each kind of failure.
@Suite(.startsProcesses) struct ArborctlTests {
  static func binary() -> String {
    let beside = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("arborctl").path
    if FileManager.default.isExecutableFile(atPath: beside) { return beside }
    return URL(fileURLWithPath: DaemonHarness.binary()).deletingLastPathComponent().appendingPathComponent("arborctl").path
  }

  struct Outcome {
    var status: TerminationStatus
    var output: String
    var error: String
    var json: JSONValue? { try? JSONValue(parsing: output.trimmingCharacters(in: .whitespacesAndNewlines)) }
  }

  /// Runs `arborctl arguments…` with `$ARBOR_SOCKET` set to `socket`.
  static func arborctl(_ arguments: [String], socket: String?, as user: String? = nil) async throws -> Outcome {
    ProcessSlots.expectHeld("arborctl")
    let environment: Environment = socket.map { .inherit.updating(["ARBOR_SOCKET": $0]) } ?? .inherit.updating(["ARBOR_SOCKET": nil])
    let executable: Executable = user == nil ? .path(.init(binary())) : .name("setpriv")
    let prefix = user.map { ["--reuid", $0, "--regid", $0, "--clear-groups", binary()] } ?? []
    let result = try await withDeadline("arborctl \(arguments.joined(separator: " "))") {
      try await run(executable, arguments: Arguments(prefix + arguments), environment: environment, output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    return Outcome(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
  }

  /// Runs arborctl commands (each its arguments) one after the other on a terminal:
  /// `script` gives them a pty for their standard output. Colour is off unless the
  /// environment given says otherwise.
  static func onTerminal(
    _ commands: [[String]], socket: String, environment: [Environment.Key: String?] = ["NO_COLOR": "1", "TERM": "xterm"]
  ) async throws -> (status: TerminationStatus, output: String) {
    let line = commands.map { ([binary()] + $0).joined(separator: " ") }.joined(separator: "; ")
    let result = try await withDeadline("on a terminal: \(line)") {
      try await run(
        .name("script"), arguments: ["-qec", line, "/dev/null"],
        environment: .inherit.updating(environment.merging(["ARBOR_SOCKET": socket]) { $1 }), output: .string(limit: 1 << 20),
        error: .string(limit: 1 << 20))
    }
    return (result.terminationStatus, result.standardOutput)
  }

  @Test func statusGetAndCallPrintJSONLinesWhenPiped() async throws {
    try await withDaemon { daemon, _ in
      let status = try await Self.arborctl(["status"], socket: daemon.socket)
      #expect(status.status == .exited(0), "\(status.error)")
      #expect(status.json?["name"] == "counterfactd")
      #expect(status.output.split(separator: "\n").count == 1, "one line")

      let added = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      #expect(added.json == ["result": nil, "revision": 1], "\(added.output)\(added.error)")
      let counter = try await Self.arborctl(["get", "/counters/0/counter"], socket: daemon.socket)
      let id = try #require(counter.json?["value"]?["id"]?.stringValue)
      // id=<hex> is not JSON, so it goes as a string; the row's id is the counter's + 1.
      let rows = try await Self.arborctl(["get", "/counters/0/id"], socket: daemon.socket)
      let rowID = try #require(rows.json?["value"]?.stringValue)
      let removed = try await Self.arborctl(["call", "/", "removeButtonTapped", "id=\(rowID)"], socket: daemon.socket)
      #expect(removed.status == .exited(0), "\(removed.error)")
      #expect(try await Self.arborctl(["get", "/counters"], socket: daemon.socket).json?["value"] == [])
      #expect(!id.isEmpty)
      let raw = try await Self.arborctl(["rpc", "history.changes", #"{"since": 0, "limit": 1}"#], socket: daemon.socket)
      #expect(raw.json?["changes"]?[0]?["intent"] == "addButtonTapped", "\(raw.output)")
    }
  }

  @Test func onATerminalTheOutputIsAlignedText() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let result = try await Self.onTerminal([["status"], ["get", "/counters/0/counter/count"]], socket: daemon.socket)
      // A terminal ends its lines with \r\n.
      let lines = result.output.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
      #expect(result.status == .exited(0), "\(result.output)")
      let table = lines.filter { $0.contains(": ") }
      #expect(table.contains { $0.hasPrefix("name:") && $0.hasSuffix(" counterfactd") }, "\(lines)")
      #expect(table.contains { $0.hasPrefix("journal.fsync:") && $0.hasSuffix(" batch") }, "\(lines)")
      // Aligned: every value starts in the same column.
      func valueColumn(_ line: String) -> Int {
        let colon = line.firstIndex(of: ":")!
        let value = line[line.index(after: colon)...].firstIndex { $0 != " " } ?? line.endIndex
        return line.distance(from: line.startIndex, to: value)
      }
      #expect(Set(table.map(valueColumn)).count == 1, "\(table)")
      #expect(lines.contains("revision 1"), "\(lines)")
      #expect(lines.contains("0"), "the count, alone on its line: \(lines)")
    }
  }

  @Test func onATerminalThereIsColourUnlessNoColorIsSet() async throws {
    try await withDaemon { daemon, _ in
      func status(_ environment: [Environment.Key: String?]) async throws -> String {
        try await Self.onTerminal([["status"]], socket: daemon.socket, environment: environment).output
      }
      let coloured = try await status(["TERM": "xterm", "NO_COLOR": nil])
      #expect(coloured.contains("\u{1B}[2mname:\u{1B}[0m"), "keys dimmed: \(coloured.debugDescription)")
      let plain = try await status(["TERM": "xterm", "NO_COLOR": "1"])
      #expect(!plain.contains("\u{1B}["), "NO_COLOR: \(plain.debugDescription)")
      let dumb = try await status(["TERM": "dumb", "NO_COLOR": nil])
      #expect(!dumb.contains("\u{1B}["), "a dumb terminal: \(dumb.debugDescription)")
      let piped = try await Self.arborctl(["status"], socket: daemon.socket)
      #expect(!piped.output.contains("\u{1B}["), "no colour in JSON lines")
    }
  }

  @Test func theDaemonsErrorExitsOneAndNamesTheIntentsThereAre() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let unknown = try await Self.arborctl(["call", "/counters/0/counter", "explode"], socket: daemon.socket)
      #expect(unknown.status == .exited(1))
      #expect(unknown.error.contains("CounterModel has no intent 'explode'"), "\(unknown.error)")
      #expect(unknown.error.contains("(it has incrementTapped, decrementTapped"), "\(unknown.error)")
      #expect(unknown.error.components(separatedBy: "incrementTapped").count == 2, "the intents are listed once: \(unknown.error)")
      let json = try await Self.arborctl(["call", "/counters/0/counter", "explode", "--json"], socket: daemon.socket)
      #expect(json.status == .exited(1))
      #expect((try? JSONValue(parsing: json.error))?["data"]?["name"] == "org.arbor.IntentNotFound", "\(json.error)")
    }
  }

  @Test func usageIsTwoAndNoDaemonIsThreeWithThePathItTried() async throws {
    let usage = try await Self.arborctl(["call", "/counters/0/counter"], socket: "/tmp/nothing.sock")
    #expect(usage.status == .exited(2))
    #expect(usage.error.contains("Missing expected argument '<intent>'"), "\(usage.error)")
    let badParams = try await Self.arborctl(["call", "/", "addButtonTapped", "--params", "[1]"], socket: "/tmp/nothing.sock")
    #expect(badParams.status == .exited(2))
    #expect(badParams.error.contains("--params must be a JSON object"), "\(badParams.error)")

    // A socket that may still appear (its folder exists) is waited for within --timeout.
    let directory = try DaemonHarness.temporaryDirectory()
    let missing = try await Self.arborctl(["status", "--timeout", "0.5"], socket: directory + "/counterfactd.sock")
    #expect(missing.status == .exited(3))
    #expect(missing.error.contains("cannot connect to \(directory)/counterfactd.sock"), "\(missing.error)")
    #expect(missing.error.contains("Is counterfactd running?") && missing.error.contains("make run"), "\(missing.error)")
  }

  @Test func aDaemonThatDoesNotAnswerInTimeIsFour() async throws {
    try await withDaemon(binary: DaemonHarness.fixtureBinary()) { daemon, _ in
      let slow = try await Self.arborctl(["call", "/", "hold", "milliseconds=2000", "--timeout", "0.3"], socket: daemon.socket)
      #expect(slow.status == .exited(4))
      #expect(slow.error.contains("no answer from \(daemon.socket) within 0.3 s"), "\(slow.error)")
    }
  }

  @Test func aSocketTheUserMayNotOpenIsFive() async throws {
    try await withDaemon { daemon, _ in
      // The socket is mode 0660, root's: nobody cannot connect.
      let denied = try await Self.arborctl(["status"], socket: daemon.socket, as: "65534")
      #expect(denied.status == .exited(5), "\(denied.error)")
      #expect(denied.error.contains("permission denied on \(daemon.socket)"), "\(denied.error)")
    }
  }
}
