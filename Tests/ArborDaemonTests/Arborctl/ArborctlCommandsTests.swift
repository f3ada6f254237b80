import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import NIOConcurrencyHelpers
import ProcessSlots
import Subprocess
import Testing

/// Every `arborctl` command beyond status, get, call and rpc, run as the built binary
/// against a real daemon: watch (values, patches, since, a restart, a terminal), events,
/// history, at, snapshot save and restore, schema, completion from the daemon, and the
/// explanation of a mistyped parameter.
@Suite(.startsProcesses) struct ArborctlCommandsTests {
  typealias Outcome = ArborctlTests.Outcome
  static func arborctl(_ arguments: [String], socket: String?) async throws -> Outcome {
    try await ArborctlTests.arborctl(arguments, socket: socket)
  }

  static func lines(_ outcome: Outcome) -> [JSONValue] {
    outcome.output.split(separator: "\n").compactMap { try? JSONValue(parsing: String($0)) }
  }

  static let increment = ["call", "/counters/0/counter", "incrementTapped"]

  /// Waits until the daemon counts `count` watches (a watch started by a process of its own).
  static func subscriptions(_ count: Int64, at daemon: DaemonUnderTest) async throws {
    let client = ArborClient(socketPath: daemon.socket)
    try await eventually("\(count) watch(es) at the daemon") { try await client.call("daemon.status")["subscriptions"]?.intValue == count }
  }

  @Test func watchPrintsTheValueOfEachRevisionThenItsPatchesWhenAsked() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      async let values = Self.arborctl(["watch", "/counters/0/counter/count", "--count", "4"], socket: daemon.socket)
      async let patches = Self.arborctl(["watch", "/counters/0/counter", "--patches", "--count", "3"], socket: daemon.socket)
      try await Self.subscriptions(2, at: daemon)
      for _ in 0..<3 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let watched = try await values
      #expect(watched.status == .exited(0), "\(watched.error)")
      #expect(Self.lines(watched) == [["revision": 1, "value": 0], ["revision": 2, "value": 1], ["revision": 3, "value": 2], ["revision": 4, "value": 3]])
      let patched = Self.lines(try await patches)
      #expect(patched.count == 3)
      #expect(patched.first?["value"]?["count"] == 0)
      #expect(patched.dropFirst().first == ["revision": 2, "patch": [["op": "replace", "path": "/count", "value": 1]]])
      // From a past revision: the value then, and every revision after it.
      let since = try await Self.arborctl(["watch", "/counters/0/counter/count", "--since", "2", "--count", "3"], socket: daemon.socket)
      #expect(Self.lines(since) == [["revision": 2, "value": 1], ["revision": 3, "value": 2], ["revision": 4, "value": 3]])
      // A path that goes away: "exists": false. The watches before it are gone first (on a
      // busy machine the daemon may still count one whose arborctl has exited, and the
      // count of 1 below would be that one).
      try await Self.subscriptions(0, at: daemon)
      async let gone = Self.arborctl(["watch", "/counters/0", "--count", "2"], socket: daemon.socket)
      try await Self.subscriptions(1, at: daemon)
      _ = try await Self.arborctl(["call", "/counters/0", "removeButtonTapped"], socket: daemon.socket)
      #expect(Self.lines(try await gone).last == ["revision": 5, "value": nil, "exists": false])
      // A path that is not there: the daemon's error, exit 1.
      let missing = try await Self.arborctl(["watch", "/nothing"], socket: daemon.socket)
      #expect(missing.status == .exited(1))
      #expect(missing.error.contains("/nothing"), "\(missing.error)")
    }
  }

  @Test func watchGoesOnAcrossAKilledAndRestartedDaemon() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let socket = directory + "/d.sock"
    let (watch, _) = try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, execution in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      let watch = Task { try await Self.arborctl(["watch", "/counters/0/counter/count", "--count", "5"], socket: socket) }
      try await Self.subscriptions(1, at: daemon)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      try execution.send(signal: .kill)
      return watch
    }
    try await withDaemon(arguments: ["--fsync", "always"], directory: directory) { daemon, _ in
      // Revisions 4, 5 and 6 after the restart: with 2 and 3 before it, five values.
      for _ in 0..<3 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let outcome = try await withDeadline("the watch to end after 5 values") { try await watch.value }
      #expect(outcome.status == .exited(0), "\(outcome.error)")
      #expect(Self.lines(outcome).map { $0["revision"] } == [2, 3, 4, 5, 6].map { JSONValue.int($0) }, "\(outcome.output)")
      #expect(Self.lines(outcome).map { $0["value"] } == [1, 2, 3, 4, 5].map { JSONValue.int($0) })
      #expect(outcome.error.contains("reconnecting"), "the loss is said on standard error: \(outcome.error)")
    }
  }

  @Test func watchOnATerminalRedrawsTheValueInPlace() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let terminal = Task { try await ArborctlTests.onTerminal([["watch", "/counters/0/counter/count", "--count", "3"]], socket: daemon.socket) }
      try await Self.subscriptions(1, at: daemon)
      for _ in 0..<2 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let result = try await withDeadline("the terminal watch to end") { try await terminal.value }
      let output = result.output
      #expect(result.status == .exited(0), "\(output)")
      #expect(output.contains("revision 1  /counters/0/counter/count"), "\(output)")
      // Two lines drawn (header, value): each redraw goes up two lines and erases them.
      #expect(output.components(separatedBy: "\u{1B}[2F\u{1B}[J").count == 3, "two redraws: \(output.debugDescription)")
      // Each drawing is made with auto-wrap off (CSI ?7l), and turns it on again (CSI ?7h).
      #expect(output.hasSuffix("2\r\n\u{1B}[?7h"), "the last value drawn: \(output.debugDescription)")
      #expect(!output.contains("{\"revision\""), "text, not JSON lines")
    }
  }

  @Test func eventsPrintsEachEventWithItsSource() async throws {
    try await withDaemon { daemon, _ in
      for _ in 0..<2 { _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket) }
      async let events = Self.arborctl(["events", "--type", "CounterRowModel.Event", "--count", "1"], socket: daemon.socket)
      try await Self.subscriptions(1, at: daemon)
      _ = try await Self.arborctl(["call", "/counters/1", "removeButtonTapped"], socket: daemon.socket)
      let outcome = try await events
      #expect(outcome.status == .exited(0), "\(outcome.error)")
      let line = try #require(Self.lines(outcome).first)
      #expect(line["type"] == "CounterRowModel.Event")
      #expect(line["event"] == ["removeTapped": [:]])
      #expect(line["source"]?["path"] == "/counters/1")
      #expect(line["source"]?["type"] == "CounterRowModel")
    }
  }

  @Test func historyPagesThroughTheJournalAndAtReadsThePast() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      for _ in 0..<4 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let all = Self.lines(try await Self.arborctl(["history"], socket: daemon.socket))
      #expect(all.map { $0["revision"] } == [1, 2, 3, 4, 5].map { JSONValue.int($0) })
      #expect(all.first?["intent"] == "addButtonTapped")
      #expect(all.last?["target"] == "/counters/0/counter")
      #expect(all.last?["patch"] == [["op": "replace", "path": "/counters/0/counter/count", "value": 4]])
      let page = Self.lines(try await Self.arborctl(["history", "--since", "2", "--limit", "2"], socket: daemon.socket))
      #expect(page.map { $0["revision"] } == [3, 4])
      let past = try await Self.arborctl(["at", "3", "/counters/0/counter/count"], socket: daemon.socket)
      #expect(past.json?["value"] == 2)
      #expect(past.json?["revision"] == 3)
      let future = try await Self.arborctl(["at", "99"], socket: daemon.socket)
      #expect(future.status == .exited(1))
      #expect(!future.error.isEmpty)
      let output = try await ArborctlTests.onTerminal([["history", "--limit", "2"]], socket: daemon.socket).output
      #expect(output.contains("r1  "), "\(output)")
      #expect(output.contains("addButtonTapped on /"), "\(output)")
      #expect(output.contains("replace  /counters/0/counter/count = 1"), "\(output)")
    }
  }

  @Test func snapshotSaveAndRestoreRoundTripAndBadFilesAreRefusedClearly() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      _ = try await Self.arborctl(Self.increment, socket: daemon.socket)
      let file = daemon.directory + "/record.json"
      let saved = try await Self.arborctl(["snapshot", "save", file], socket: daemon.socket)
      #expect(saved.status == .exited(0), "\(saved.error)")
      #expect(saved.json?["revision"] == 2)
      let record = try JSONValue(parsing: Array(try Data(contentsOf: URL(fileURLWithPath: file))))
      #expect(record["root"] == "AppModel")
      #expect(record["state"]?["counters"]?[0]?["counter"]?["count"] == 1)
      for _ in 0..<3 { _ = try await Self.arborctl(Self.increment, socket: daemon.socket) }
      let restored = try await Self.arborctl(["snapshot", "restore", file], socket: daemon.socket)
      #expect(restored.status == .exited(0), "\(restored.error)")
      #expect(restored.json?["revision"] == 6, "a revision above every one served")
      #expect(try await Self.arborctl(["get", "/counters/0/counter/count"], socket: daemon.socket).json?["value"] == 1)

      let notJSON = daemon.directory + "/garbage.json"
      try Data("{\"format\": 1, trunc".utf8).write(to: URL(fileURLWithPath: notJSON))
      let garbage = try await Self.arborctl(["snapshot", "restore", notJSON], socket: daemon.socket)
      #expect(garbage.status == .exited(2))
      #expect(garbage.error.contains("\(notJSON) is not JSON"), "\(garbage.error)")
      let absent = try await Self.arborctl(["snapshot", "restore", daemon.directory + "/absent.json"], socket: daemon.socket)
      #expect(absent.status == .exited(2))
      #expect(absent.error.contains("cannot read \(daemon.directory)/absent.json"), "\(absent.error)")
      let other = daemon.directory + "/other.json"
      try Data(#"{"format": 1, "root": "Thermostat", "schema": "sha256:0", "revision": 1, "createdAt": "2026-11-22T13:00:00Z", "state": {}}"#.utf8)
        .write(to: URL(fileURLWithPath: other))
      let rejected = try await Self.arborctl(["snapshot", "restore", other], socket: daemon.socket)
      #expect(rejected.status == .exited(1))
      #expect(rejected.error.contains("Thermostat"), "the daemon's reason: \(rejected.error)")
      #expect(try await Self.arborctl(["get", "/counters/0/counter/count"], socket: daemon.socket).json?["value"] == 1, "nothing lost")
      let unwritable = try await Self.arborctl(["snapshot", "save", "/nonexistent-folder/record.json"], socket: daemon.socket)
      #expect(unwritable.status == .exited(2))
      #expect(unwritable.error.contains("cannot write /nonexistent-folder/record.json"), "\(unwritable.error)")
    }
  }

  @Test func schemaListsIntentsAndDescribesOneIntentsParameters() async throws {
    try await withDaemon { daemon, _ in
      let document = try await Self.arborctl(["schema"], socket: daemon.socket)
      #expect(document.json?["openrpc"] != nil, "piped: the OpenRPC document")
      let remove = Self.lines(try await Self.arborctl(["schema", "removeButtonTapped"], socket: daemon.socket))
      let app = try #require(remove.first { $0["modelType"] == "AppModel" })
      #expect(app["params"]?["properties"]?["id"]?["type"] == "string")
      #expect(app["params"]?["required"] == ["id"])
      let unknown = try await Self.arborctl(["schema", "explode"], socket: daemon.socket)
      #expect(unknown.status == .exited(1))
      #expect(unknown.error.contains("no model type has an intent 'explode'"), "\(unknown.error)")
      let output = try await ArborctlTests.onTerminal([["schema"], ["schema", "removeButtonTapped"]], socket: daemon.socket).output
      #expect(output.contains("removeButtonTapped(id: string matching ^[0-9a-f]{16}$)"), "\(output)")
      #expect(output.contains("intent.call"), "\(output)")
      #expect(output.contains("AppModel.removeButtonTapped"), "\(output)")
    }
  }

  @Test func aMistypedParameterSaysWhatTheSchemaExpects() async throws {
    try await withDaemon { daemon, _ in
      let wrong = try await Self.arborctl(["call", "/", "removeButtonTapped", "id=3"], socket: daemon.socket)
      #expect(wrong.status == .exited(1))
      #expect(wrong.error.contains("parameter 'id' of removeButtonTapped is invalid"), "\(wrong.error)")
      #expect(wrong.error.contains("id must be string matching ^[0-9a-f]{16}$"), "\(wrong.error)")
      #expect(wrong.error.contains(#"id=3 was read as JSON (number); to send it as a string, quote it: id='"3"'"#), "\(wrong.error)")
      #expect(wrong.error.contains("AppModel.removeButtonTapped(id: string"), "\(wrong.error)")
    }
  }

  /// What arborctl offers for the completion `words` (its `---completion` arguments). A
  /// completion gives the daemon one second and offers nothing after it (it must not hang a
  /// shell); on a loaded machine the daemon's answer can take longer, so an empty offer is
  /// asked again until one comes, within the deadline of every wait.
  static func completion(_ words: [String], socket: String) async throws -> [String] {
    let offered = NIOLockedValueBox<[String]>([])
    try await eventually("arborctl to offer completions for \(words.suffix(2).joined(separator: " "))") {
      let outcome = try await Self.arborctl(["---completion"] + words, socket: socket)
      let lines = outcome.output.split(separator: "\n").map(String.init)
      offered.withLockedValue { $0 = lines }
      return !lines.isEmpty
    }
    return offered.withLockedValue { $0 }
  }

  @Test func completionAsksTheDaemonForPathsAndIntents() async throws {
    try await withDaemon { daemon, _ in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      // What bash's completion function runs: the command's words, the index of the one
      // being completed, the cursor's place in it.
      let intents = try await Self.completion(
        ["call", "--", "positional@1", "3", "0", "arborctl", "call", "/counters/0/counter", ""], socket: daemon.socket)
      #expect(intents == ["alertDismissed", "decrementTapped", "factButtonTapped", "incrementTapped"])
      let rootIntents = try await Self.completion(
        ["call", "--", "positional@1", "3", "1", "arborctl", "call", "/", "r"], socket: daemon.socket)
      #expect(rootIntents == ["removeButtonTapped"])
      let paths = try await Self.completion(
        ["get", "--", "positional@0", "2", "12", "arborctl", "get", "/counters/0/"], socket: daemon.socket)
      #expect(paths == ["/counters/0/counter", "/counters/0/id"])
      let targets = try await Self.completion(
        ["call", "--", "positional@0", "2", "12", "arborctl", "call", "/counters/0/"], socket: daemon.socket)
      #expect(targets == ["/counters/0/counter"], "only what can hold a model")
      for shell in ["bash", "zsh", "fish"] {
        let script = try await Self.arborctl(["--generate-completion-script", shell], socket: nil)
        #expect(script.status == .exited(0))
        #expect(script.output.contains("---completion"), "the \(shell) script asks arborctl for the daemon's names")
      }
    }
  }

  @Test func aWatchToldNotToReconnectEndsWithThreeWhenTheDaemonStops() async throws {
    try await withDaemon { daemon, execution in
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      async let watch = Self.arborctl(["watch", "--no-reconnect"], socket: daemon.socket)
      try await Self.subscriptions(1, at: daemon)
      try execution.send(signal: .terminate)
      let outcome = try await watch
      #expect(outcome.status == .exited(3), "\(outcome.error)")
      #expect(outcome.error.contains("the daemon closed the connection"), "\(outcome.error)")
      #expect(Self.lines(outcome).first?["revision"] == 1, "the value came before the stop")
    }
  }

  @Test func theManualDescribesEveryCommand() async throws {
    let directory = URL(fileURLWithPath: ArborctlTests.binary()).deletingLastPathComponent()
    let generator = directory.appendingPathComponent("generate-manual").path
    guard FileManager.default.isExecutableFile(atPath: generator) else {
      Issue.record("swift-argument-parser's generate-manual is not built next to arborctl (\(generator))")
      return
    }
    let manual = try await withDeadline("generate-manual") {
      try await run(.path(.init(generator)), arguments: [ArborctlTests.binary(), "--output-directory", "-"], output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    }
    let page = manual.standardOutput
    #expect(manual.terminationStatus == .exited(0), "\(manual.standardError)")
    #expect(page.contains(".Dt ARBORCTL 1"))
    for command in ["status", "get", "call", "watch", "events", "history", "at", "snapshot", "save", "restore", "schema", "rpc", "bench"] {
      #expect(page.contains(".It Em \(command)"), "the manual has \(command)")
    }
    #expect(page.contains("Exit codes (the same for every command):\n  0  ok"))
  }

  @Test func undoAndRedoStepThroughTheRowsTheRootTracks() async throws {
    try await withDaemon { daemon, _ in
      let nothing = try await Self.arborctl(["undo"], socket: daemon.socket)
      #expect(nothing.status == .exited(1))
      #expect(nothing.error.contains("there is no step to undo"), "\(nothing.error)")
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      _ = try await Self.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let undone = try await Self.arborctl(["undo"], socket: daemon.socket)
      #expect(undone.status == .exited(0), "\(undone.error)")
      #expect(undone.json?["revision"] == 3)
      #expect(undone.json?["canRedo"] == true)
      #expect(try await Self.arborctl(["get", "/counters"], socket: daemon.socket).json?["value"]?.arrayValue?.count == 1)
      let redone = try await Self.arborctl(["redo"], socket: daemon.socket)
      #expect(redone.json?["revision"] == 4)
      #expect(try await Self.arborctl(["get", "/counters"], socket: daemon.socket).json?["value"]?.arrayValue?.count == 2)
      let text = try await ArborctlTests.onTerminal([["undo"]], socket: daemon.socket).output
      #expect(text.contains("revision 5 (can undo: yes, can redo: yes)"), "\(text)")
    }
  }
}
