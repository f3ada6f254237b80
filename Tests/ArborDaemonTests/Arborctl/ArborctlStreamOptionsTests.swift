import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The options of the streaming commands (`watch`, `events`, `history`): `--output
/// json|text|yaml`, `--timestamps`, `-q/--quiet`; `--color` on every command; and `watch`
/// on a terminal smaller than its value. Each runs the built `arborctl` against a real daemon.
@Suite(.startsProcesses) struct ArborctlStreamOptionsTests {
  typealias Outcome = ArborctlTests.Outcome

  static func arborctl(_ arguments: [String], socket: String?) async throws -> Outcome {
    try await ArborctlTests.arborctl(arguments, socket: socket)
  }

  static let increment = ArborctlCommandsTests.increment

  /// Runs `arborctl arguments…` on a terminal: `script` gives it a pty, whose window is set
  /// to `rows` × `columns` first (with `stty`, in the same shell) when `rows` is given, and
  /// left unknown (0 × 0) otherwise. Colour is off, `$LINES` and `$COLUMNS` unset, unless
  /// `environment` says otherwise.
  static func onTerminal(
    rows: Int? = nil, columns: Int = 80, _ arguments: [String], socket: String, environment: [Environment.Key: String?] = [:]
  ) async throws -> (status: TerminationStatus, output: String) {
    let command = ([ArborctlTests.binary()] + arguments).map { "'\($0)'" }.joined(separator: " ")
    let line = (rows.map { "stty rows \($0) cols \(columns) && " } ?? "") + command
    let base: [Environment.Key: String?] = ["NO_COLOR": "1", "TERM": "xterm", "LINES": nil, "COLUMNS": nil, "ARBOR_SOCKET": socket]
    let result = try await withDeadline("on a terminal: \(line)") {
      try await run(
        .name("script"), arguments: ["-qec", line, "/dev/null"], environment: .inherit.updating(base.merging(environment) { $1 }),
        output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    return (result.terminationStatus, result.standardOutput)
  }

  /// Whether `text` is a local time in RFC 3339 with milliseconds, within five minutes of now.
  static func isReceiveTime(_ text: String?) -> Bool {
    guard let text, text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}/#) != nil else { return false }
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    guard let date = parser.date(from: text) else { return false }
    return abs(date.timeIntervalSinceNow) < 300
  }

  /// The lines of a terminal's output (it ends them with \r\n).
  static func terminalLines(_ output: String) -> [String] {
    output.components(separatedBy: "\r\n")
  }

  // MARK: - watch on a small terminal

  @Test func watchOnASmallTerminalDrawsWhatFitsUnderItsHeader() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      _ = try await client.batch(Array(repeating: ("intent.call", ["intent": "addButtonTapped"] as JSONValue), count: 40))
      // The whole value as `get` prints it on a terminal, under its revision line.
      let whole = try await Self.onTerminal(["get", "/counters"], socket: daemon.socket)
      let valueLines = Self.terminalLines(whole.output).dropFirst().filter { !$0.isEmpty }.count
      #expect(valueLines > 300, "40 rows of counters: \(valueLines) lines")

      let terminal = Task { try await Self.onTerminal(rows: 10, columns: 60, ["watch", "/counters", "--count", "3"], socket: daemon.socket) }
      try await ArborctlCommandsTests.subscriptions(1, at: daemon)
      for _ in 0..<2 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let result = try await withDeadline("the watch on a 10-row terminal to end") { try await terminal.value }
      #expect(result.status == .exited(0), "\(result.output)")
      // 10 rows: the header, 7 lines of the value, the count of the others, and the row the
      // cursor waits on. Each redraw goes back up the 9 lines drawn and erases them.
      let frames = result.output.components(separatedBy: "\u{1B}[9F\u{1B}[J")
      #expect(frames.count == 3, "two redraws of 9 lines: \(result.output.debugDescription)")
      for (index, frame) in frames.enumerated() {
        #expect(frame.contains("revision \(40 + index)  /counters  (Ctrl-C to stop)"), "the header, in frame \(index): \(frame.debugDescription)")
        #expect(frame.contains("… \(valueLines - 7) more lines (arborctl get /counters, or --patches)"), "frame \(index): \(frame.debugDescription)")
        #expect(Self.terminalLines(frame).count - 1 == 9, "9 lines in frame \(index): \(frame.debugDescription)")
        #expect(frame.utf8.count < 1_000, "frame \(index) is \(frame.utf8.count) bytes")
      }
      #expect(frames.last?.contains("\"count\" : 2") == true, "the first counter, counted up twice: \(frames.last ?? "")")
      // Every frame is bounded by the window, not by the value.
      #expect(result.output.utf8.count < 3_000, "3 frames wrote \(result.output.utf8.count) bytes; the value is \(whole.output.utf8.count)")
    }
  }

  @Test func watchOnATerminalOfUnknownSizeReadsLines() async throws {
    try await withDaemon { daemon, _ in
      let client = try await daemon.connect()
      _ = try await client.batch(Array(repeating: ("intent.call", ["intent": "addButtonTapped"] as JSONValue), count: 3))
      // `script`'s pty has no window size here: $LINES says 6 rows.
      let result = try await Self.onTerminal(["watch", "/counters", "--count", "1"], socket: daemon.socket, environment: ["LINES": "6"])
      #expect(result.status == .exited(0), "\(result.output)")
      let lines = Self.terminalLines(result.output)
      // The header, 3 lines of the value, the count; then the cursor's row.
      #expect(lines.count == 6, "\(result.output.debugDescription)")
      #expect(lines.first?.contains("revision 3  /counters") == true, "\(lines)")
      #expect(lines.dropFirst().first?.hasSuffix("[") == true, "the value's first line: \(lines)")
      #expect(lines.contains { $0.contains("more lines (arborctl get /counters, or --patches)") }, "\(lines)")
    }
  }

  // MARK: - --output

  @Test func outputJSONIsTheJSONFlagAndThePipedDefault() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      for _ in 0..<2 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let piped = try await Self.arborctl(["history"], socket: daemon.socket)
      let output = try await Self.arborctl(["history", "--output", "json"], socket: daemon.socket)
      let flag = try await Self.arborctl(["history", "--json"], socket: daemon.socket)
      #expect(output.status == .exited(0), "\(output.error)")
      #expect(ArborctlCommandsTests.lines(output).count == 3, "\(output.output)")
      #expect(output.output == piped.output && output.output == flag.output)
      // On a terminal too.
      let terminal = try await Self.onTerminal(["history", "--output", "json"], socket: daemon.socket)
      let lines = Self.terminalLines(terminal.output).filter { !$0.isEmpty }
      #expect(lines.compactMap { try? JSONValue(parsing: $0) }.map { $0["revision"] } == [1, 2, 3], "\(terminal.output)")
    }
  }

  @Test func outputTextPrintsForPeopleEvenWhenPiped() async throws {
    try await withDaemon { daemon, _ in
      for _ in 0..<2 { _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket) }
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      // history: what a terminal shows, without the terminal's \r.
      let history = try await Self.arborctl(["history", "--output", "text"], socket: daemon.socket)
      let terminal = try await Self.onTerminal(["history"], socket: daemon.socket)
      #expect(history.status == .exited(0), "\(history.error)")
      #expect(history.output == terminal.output.replacingOccurrences(of: "\r\n", with: "\n"), "\(history.output)")
      #expect(history.output.contains("incrementTapped on /counters/0/counter"), "\(history.output)")

      // watch: each value in full, after its header, one after the other.
      async let watch = Self.arborctl(["watch", "/counters/0/counter/count", "--count", "2", "--output", "text"], socket: daemon.socket)
      async let events = Self.arborctl(["events", "--count", "1", "--output", "text"], socket: daemon.socket)
      try await ArborctlCommandsTests.subscriptions(2, at: daemon)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      let watched = try await watch
      #expect(watched.status == .exited(0), "\(watched.error)")
      #expect(watched.output == "revision 3  /counters/0/counter/count\n1\nrevision 4  /counters/0/counter/count\n2\n", "\(watched.output.debugDescription)")
      _ = try await Self.arborctl(["call", "/counters/1", "removeButtonTapped"], socket: daemon.socket)
      let event = try await events
      #expect(event.status == .exited(0), "\(event.error)")
      #expect(event.output.hasPrefix("r") && event.output.hasSuffix("  /counters/1  CounterRowModel.Event  {\"removeTapped\":{}}\n"), "\(event.output.debugDescription)")
      #expect(!event.output.contains("\u{1B}["), "no colour in a pipe")
    }
  }

  @Test func outputYAMLPrintsTheSameObjectsAsDocuments() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      let watch = try await Self.arborctl(["watch", "/counters/0/counter/count", "--count", "1", "--output", "yaml"], socket: daemon.socket)
      #expect(watch.status == .exited(0), "\(watch.error)")
      #expect(watch.output == "---\nrevision: 2\nvalue: 1\n", "\(watch.output.debugDescription)")
      let history = try await Self.arborctl(["history", "--output", "yaml"], socket: daemon.socket)
      #expect(history.status == .exited(0), "\(history.error)")
      #expect(history.output.components(separatedBy: "---\n").count == 3, "two documents: \(history.output)")
      #expect(
        history.output.contains("intent: incrementTapped\npatch:\n  - op: replace\n    path: /counters/0/counter/count\n    value: 1\nrevision: 2\ntarget: /counters/0/counter\n"),
        "\(history.output)")

      // events: the same object as its JSON line.
      async let events = Self.arborctl(["events", "--count", "1", "--output", "yaml"], socket: daemon.socket)
      try await ArborctlCommandsTests.subscriptions(1, at: daemon)
      _ = try await Self.arborctl(["call", "/counters/0", "removeButtonTapped"], socket: daemon.socket)
      let event = try await events
      #expect(event.status == .exited(0), "\(event.error)")
      #expect(event.output.hasPrefix("---\nevent:\n  removeTapped: {}\nrevision: "), "\(event.output)")
      #expect(event.output.contains("\nsource:\n  id: "), "\(event.output)")
      #expect(event.output.contains("  path: /counters/0\n  type: CounterRowModel\ntype: CounterRowModel.Event\n"), "\(event.output)")

      // A YAML parser reads the same values as the JSON lines hold: ids, strings with
      // quotes and colons (the counter's alert when its fact cannot be fetched, or the
      // fact), nulls, booleans, empty collections.
      for _ in 0..<3 { _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket) }
      _ = try await Self.arborctl(["call", "/counters/0/counter", "factButtonTapped"], socket: daemon.socket)
      try await eventually("the fact's fetch to end") {
        try await Self.arborctl(["get", "/counters/0/counter/isLoadingFact"], socket: daemon.socket).json?["value"] == false
      }
      guard await Self.pythonReadsYAML() else { return }
      for arguments in [["history"], ["watch", "/", "--count", "1"]] {
        let json = try await Self.arborctl(arguments + ["--output", "json"], socket: daemon.socket)
        let yaml = try await Self.arborctl(arguments + ["--output", "yaml"], socket: daemon.socket)
        let parsed = try await Self.yamlAsJSON(yaml.output)
        #expect(parsed == .array(ArborctlCommandsTests.lines(json)), "arborctl \(arguments.joined(separator: " ")) --output yaml:\n\(yaml.output)")
      }
    }
  }

  /// Whether `python3` has PyYAML (`import yaml`), to read the YAML back with a parser of
  /// its own. Without it, the YAML is checked by its text only.
  static func pythonReadsYAML() async -> Bool {
    let result = try? await withDeadline("python3 -c 'import yaml'") {
      try await run(.name("python3"), arguments: ["-c", "import yaml"], output: .discarded, error: .discarded)
    }
    return result?.terminationStatus == .exited(0)
  }

  /// The documents of `yaml`, read by PyYAML, as one JSON array.
  static func yamlAsJSON(_ yaml: String) async throws -> JSONValue? {
    let file = try DaemonHarness.temporaryDirectory() + "/out.yaml"
    try Data(yaml.utf8).write(to: URL(fileURLWithPath: file))
    let script = "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))"
    let result = try await withDeadline("PyYAML to read arborctl's YAML") {
      try await run(.name("python3"), arguments: ["-c", script, file], output: .string(limit: 1 << 22), error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus == .exited(0), "\(result.standardError)")
    return try? JSONValue(parsing: result.standardOutput)
  }

  // MARK: - --timestamps

  @Test func timestampsSayWhenEachUpdateCame() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      async let watch = Self.arborctl(["watch", "/counters/0/counter/count", "--count", "2", "--timestamps"], socket: daemon.socket)
      async let events = Self.arborctl(["events", "--count", "1", "--timestamps"], socket: daemon.socket)
      async let yaml = Self.arborctl(["watch", "/counters/0/counter/count", "--count", "2", "--timestamps", "--output", "yaml"], socket: daemon.socket)
      try await ArborctlCommandsTests.subscriptions(3, at: daemon)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      _ = try await Self.arborctl(["call", "/counters/0", "removeButtonTapped"], socket: daemon.socket)

      // JSON: a "time" member, the rest as without it.
      let watched = ArborctlCommandsTests.lines(try await watch)
      #expect(watched.count == 2)
      #expect(watched.allSatisfy { Self.isReceiveTime($0["time"]?.stringValue) }, "\(watched)")
      #expect(watched.map { $0["value"] } == [0, 1])
      #expect(watched.first?.objectValue?.keys.sorted() == ["revision", "time", "value"])
      let event = try #require(ArborctlCommandsTests.lines(try await events).first)
      #expect(Self.isReceiveTime(event["time"]?.stringValue), "\(event)")
      #expect(event["type"] == "CounterRowModel.Event")
      // YAML: the same member, in each document.
      let documents = try await yaml
      let times = documents.output.split(separator: "\n").filter { $0.hasPrefix("time: ") }.map { try? JSONValue(parsing: String($0.dropFirst(6))) }
      #expect(times.count == 2 && times.allSatisfy { Self.isReceiveTime($0?.stringValue) }, "\(documents.output)")

      // history: "time" is the commit's; the receive time is "receivedAt".
      let history = ArborctlCommandsTests.lines(try await Self.arborctl(["history", "--timestamps"], socket: daemon.socket))
      #expect(history.count == 3)
      #expect(history.allSatisfy { Self.isReceiveTime($0["receivedAt"]?.stringValue) && $0["time"]?.stringValue?.hasSuffix("Z") == true }, "\(history)")

      // Text: each line starts with the time.
      let text = try await Self.arborctl(["history", "--output", "text", "--timestamps"], socket: daemon.socket)
      let lines = text.output.split(separator: "\n").map(String.init)
      #expect(lines.count > 3, "\(text.output)")
      #expect(lines.allSatisfy { Self.isReceiveTime($0.components(separatedBy: "  ").first) }, "\(text.output)")
      #expect(lines.first?.hasSuffix("r1  " + (history.first?["time"]?.stringValue?.split(separator: "T").last?.dropLast() ?? "") + "  addButtonTapped on /") == true, "\(text.output)")
      // On a terminal, the watch's header starts with it.
      let terminal = try await Self.onTerminal(["watch", "/counters", "--count", "1", "--timestamps"], socket: daemon.socket)
      let header = Self.terminalLines(terminal.output).first ?? ""
      let parts = header.replacingOccurrences(of: "\u{1B}[?7l", with: "").components(separatedBy: "  ")
      #expect(Self.isReceiveTime(parts.first) && parts.dropFirst().first == "revision 3", "\(header.debugDescription)")
    }
  }

  // MARK: - --quiet

  @Test func quietPrintsNothingButErrorsAndEndsAsWithout() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      // Wait until two revisions have come (the first value counts): then exit 0.
      async let watch = Self.arborctl(["watch", "/counters/0/counter/count", "--count", "3", "-q"], socket: daemon.socket)
      async let events = Self.arborctl(["events", "--count", "1", "--quiet"], socket: daemon.socket)
      try await ArborctlCommandsTests.subscriptions(2, at: daemon)
      for _ in 0..<2 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let watched = try await watch
      #expect(watched.status == .exited(0), "\(watched.error)")
      #expect(watched.output.isEmpty && watched.error.isEmpty, "\(watched.output)\(watched.error)")
      _ = try await Self.arborctl(["call", "/counters/0", "removeButtonTapped"], socket: daemon.socket)
      let event = try await events
      #expect(event.status == .exited(0), "\(event.error)")
      #expect(event.output.isEmpty && event.error.isEmpty, "\(event.output)\(event.error)")
      let history = try await Self.arborctl(["history", "-q", "--output", "text"], socket: daemon.socket)
      #expect(history.status == .exited(0) && history.output.isEmpty && history.error.isEmpty, "\(history.output)\(history.error)")
      // On a terminal too: not even the header.
      let terminal = try await Self.onTerminal(["watch", "/", "--count", "1", "--quiet"], socket: daemon.socket)
      #expect(terminal.status == .exited(0) && terminal.output.isEmpty, "\(terminal.output.debugDescription)")
      // Errors still say what went wrong, with their exit code.
      let missing = try await Self.arborctl(["watch", "/nothing", "-q"], socket: daemon.socket)
      #expect(missing.status == .exited(1))
      #expect(missing.output.isEmpty && missing.error.contains("/nothing"), "\(missing.error)")
    }
    let unreachable = try await Self.arborctl(["history", "--quiet", "--socket", "/nonexistent/arbor.sock"], socket: nil)
    #expect(unreachable.status == .exited(3))
    #expect(unreachable.error.contains("cannot connect to /nonexistent/arbor.sock"), "\(unreachable.error)")
  }

  // MARK: - --color

  @Test func colorAlwaysNeverAndAuto() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let escape = "\u{1B}["
      // always: even with $NO_COLOR, even in a pipe (text, and the error's lead).
      let forced = try await Self.onTerminal(["status", "--color", "always"], socket: daemon.socket)
      #expect(forced.output.contains("\(escape)2mname:\(escape)0m"), "\(forced.output.debugDescription)")
      let piped = try await Self.arborctl(["history", "--output", "text", "--color", "always"], socket: daemon.socket)
      #expect(piped.output.contains("\(escape)36mr1\(escape)0m"), "\(piped.output.debugDescription)")
      let error = try await Self.arborctl(["get", "/nothing", "--color", "always"], socket: daemon.socket)
      #expect(error.status == .exited(1))
      #expect(error.error.hasPrefix("\(escape)1;31marborctl:\(escape)0m"), "\(error.error.debugDescription)")
      // JSON is never coloured.
      let json = try await Self.arborctl(["history", "--color", "always"], socket: daemon.socket)
      #expect(!json.output.contains(escape) && ArborctlCommandsTests.lines(json).count == 1, "\(json.output.debugDescription)")
      // never: not even on a terminal that would have it.
      let colourful: [Environment.Key: String?] = ["NO_COLOR": nil, "TERM": "xterm"]
      let never = try await Self.onTerminal(["status", "--color", "never"], socket: daemon.socket, environment: colourful)
      #expect(never.status == .exited(0))
      #expect(!never.output.contains(escape), "\(never.output.debugDescription)")
      // auto (the default): a terminal without $NO_COLOR, and not a pipe.
      let auto = try await Self.onTerminal(["status", "--color", "auto"], socket: daemon.socket, environment: colourful)
      #expect(auto.output.contains("\(escape)2mname:\(escape)0m"), "\(auto.output.debugDescription)")
      let autoPiped = try await Self.arborctl(["history", "--output", "text", "--color", "auto"], socket: daemon.socket)
      #expect(autoPiped.status == .exited(0) && !autoPiped.output.contains(escape), "\(autoPiped.output.debugDescription)")
      // Every command takes it.
      for arguments in [["get", "/"], ["call", "/counters/0/counter", "incrementTapped"], ["ping"], ["schema"], ["at", "1"], ["rpc", "daemon.status"], ["snapshot", "save", "-"]] {
        let outcome = try await Self.arborctl(arguments + ["--color", "never"], socket: daemon.socket)
        #expect(outcome.status == .exited(0), "arborctl \(arguments.joined(separator: " ")) --color never: \(outcome.error)")
      }
    }
  }

  // MARK: - Before the command, and mistakes

  @Test func streamOptionsMayComeBeforeTheCommand() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let yaml = try await Self.arborctl(["--output=yaml", "--timestamps", "history"], socket: daemon.socket)
      #expect(yaml.status == .exited(0), "\(yaml.error)")
      #expect(yaml.output.hasPrefix("---\nintent: addButtonTapped\n") && yaml.output.contains("\nreceivedAt: \""), "\(yaml.output)")
      let coloured = try await Self.arborctl(["--color", "always", "--output", "text", "history"], socket: daemon.socket)
      #expect(coloured.output.contains("\u{1B}[36mr1\u{1B}[0m"), "\(coloured.output.debugDescription)")
      let quiet = try await Self.arborctl(["-q", "--socket", daemon.socket, "watch", "/", "--count", "1"], socket: nil)
      #expect(quiet.status == .exited(0) && quiet.output.isEmpty, "\(quiet.output)\(quiet.error)")
      let status = try await Self.arborctl(["--color", "never", "status"], socket: daemon.socket)
      #expect(status.json?["name"] == "counterfactd", "\(status.output)\(status.error)")
    }
  }

  @Test func aWrongValueIsAUsageErrorThatNamesTheChoices() async throws {
    for (arguments, says) in [
      (["history", "--output", "xml"], ["'xml'", "--output", "json", "text", "yaml"]),
      (["--output", "xml", "watch", "/"], ["'xml'", "--output", "json", "text", "yaml"]),
      (["status", "--color", "sometimes"], ["'sometimes'", "--color", "auto", "always", "never"]),
      (["--color=sometimes", "history"], ["'sometimes'", "--color", "auto", "always", "never"]),
      (["history", "--json", "--output", "yaml"], ["--json is --output json: it cannot go with --output yaml"]),
      (["status", "--output", "xml"], ["'xml'", "--output"]),
      (["status", "--timeout", "0"], ["--timeout must be a number of seconds above 0"]),
    ] {
      let outcome = try await Self.arborctl(arguments, socket: "/tmp/nothing.sock")
      #expect(outcome.status == .exited(2), "arborctl \(arguments.joined(separator: " ")): \(outcome.error)")
      #expect(outcome.output.isEmpty)
      for word in says {
        #expect(outcome.error.contains(word), "arborctl \(arguments.joined(separator: " ")) says \(word): \(outcome.error)")
      }
    }
  }

  // MARK: - The manual

  /// The man page, as `make arborctl-extras` writes it (swift-argument-parser's generate-manual).
  static func manualPage() async throws -> String? {
    let generator = URL(fileURLWithPath: ArborctlTests.binary()).deletingLastPathComponent().appendingPathComponent("generate-manual").path
    guard FileManager.default.isExecutableFile(atPath: generator) else {
      Issue.record("swift-argument-parser's generate-manual is not built next to arborctl (\(generator))")
      return nil
    }
    let manual = try await withDeadline("generate-manual") {
      try await run(.path(.init(generator)), arguments: [ArborctlTests.binary(), "--output-directory", "-"], output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    #expect(manual.terminationStatus == .exited(0), "\(manual.standardError)")
    return manual.standardOutput
  }

  @Test func theManualListsEachExitCodeWithItsMeaningAndTheDefaults() async throws {
    guard let page = try await Self.manualPage() else { return }
    // One line each: in the manual, a text line that starts with blanks starts a line.
    for code in [
      "0  ok; also when the reader of a pipe goes away", "1  the daemon answered with an error", "2  usage: a missing or mistyped argument, option or value",
      "3  cannot connect: nothing listens on the socket", "4  timeout: no answer within --timeout", "5  permission denied: the socket's mode, or the daemon's role check",
      "130  stopped by Ctrl-C",
    ] {
      #expect(page.contains("\n  \(code)"), "the manual lists exit code \(code)")
    }
    for option in ["--timeout", "--color", "--output", "--timestamps", "--quiet", "--limit", "--count", "--clients", "--requests", "--pipeline", "--target"] {
      #expect(page.split(separator: "\n").contains { $0.hasPrefix(".It Fl") && $0.contains(" -\(option.dropFirst(2))") }, "the manual has \(option)")
    }
    for text in [
      "Seconds to wait for the daemon before giving up, exit 4 (default: 10);", "never (default: auto)", "(default: text on a terminal, json when piped)",
      "Show at most this many revisions (default: 100).", "How many pings (default: 1).", "(default: 50)", "(default: 100000)", "(default: no limit)",
      "Only what fits the terminal's height is drawn",
    ] {
      #expect(page.contains(text), "the manual says \(text)")
    }
  }
}
