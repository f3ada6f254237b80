import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// The recipes of `Docs/Scripting.md` (`Examples/Scripting`), each run against a real
/// daemon with `bash`, `python3` or `sh`, and checked for what it prints. Each recipe's
/// text must also appear verbatim in the document.
@Suite(.startsProcesses) struct ScriptingRecipesTests {
  /// The repository's root: this file is `Tests/ArborDaemonTests/Scripting/…`.
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

  static func recipe(_ name: String) -> String {
    root.appendingPathComponent("Examples/Scripting").appendingPathComponent(name).path
  }

  struct Outcome {
    var status: TerminationStatus
    var output: String
    var error: String
    var lines: [String] { output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropLast(output.hasSuffix("\n") ? 1 : 0) }
  }

  /// Runs `interpreter arguments…` with `$ARBOR_SOCKET` and `$ARBORCTL` set, within a deadline.
  static func run(_ interpreter: String, _ arguments: [String], socket: String, seconds: Double = 60) async throws -> Outcome {
    let environment: Environment = .inherit.updating(["ARBOR_SOCKET": socket, "ARBORCTL": ArborctlTests.binary()])
    let result = try await withDeadline("\(interpreter) \(arguments.joined(separator: " "))", seconds: seconds) {
      try await Subprocess.run(
        .name(interpreter), arguments: Arguments(arguments), environment: environment, output: .string(limit: 1 << 20),
        error: .string(limit: 1 << 20))
    }
    return Outcome(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
  }

  @Test func countersReportPrintsEachCounterAndTheTotal() async throws {
    try await withDaemon { daemon, _ in
      let report = try await Self.run("bash", [Self.recipe("counters-report.sh"), "3"], socket: daemon.socket)
      #expect(report.status == .exited(0), "\(report.error)")
      #expect(
        report.lines == [
          "added counters 0 and 1 at revision 2",
          "revision 5",
          "counter 0: 3",
          "counter 1: 0",
          "total: 3",
          "counter 2: exit 1, org.arbor.TargetNotFound",
        ], "\(report.output)\(report.error)")

      // Again: two more rows at the end of the list, the first of them counted up twice.
      let again = try await Self.run("bash", [Self.recipe("counters-report.sh"), "2"], socket: daemon.socket)
      #expect(again.status == .exited(0), "\(again.error)")
      #expect(
        again.lines == [
          "added counters 2 and 3 at revision 7",
          "revision 9",
          "counter 0: 3",
          "counter 1: 0",
          "counter 2: 2",
          "counter 3: 0",
          "total: 5",
          "counter 4: exit 1, org.arbor.TargetNotFound",
        ], "\(again.output)\(again.error)")
    }
  }

  @Test func countersReportExitsWithArborctlsCodeWhenNoDaemonListens() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    // A folder that does not exist: arborctl does not wait for a daemon to start there.
    let report = try await Self.run("bash", [Self.recipe("counters-report.sh")], socket: directory + "/gone/none.sock")
    #expect(report.status == .exited(3), "\(report.output)\(report.error)")
    #expect(report.error.contains("no daemon to talk to (arborctl exited 3)"), "\(report.error)")
    #expect(report.output.isEmpty, "\(report.output)")
  }

  @Test func watchCountersRebuildsTheValueFromThePatches() async throws {
    try await withDaemon { daemon, _ in
      let watch = try await Self.run("python3", [Self.recipe("watch_counters.py"), daemon.socket], socket: daemon.socket)
      #expect(watch.status == .exited(0), "\(watch.output)\(watch.error)")
      #expect(
        watch.lines == [
          "watching /counters from revision 0: counts = []",
          "revision 1: counts = [0]",
          "revision 2: counts = [0, 0]",
          "revision 3: counts = [1, 0]",
          "revision 4: counts = [2, 0]",
          "revision 5: counts = [2, 1]",
          "revision 6: counts = [1]",
          "state.get at revision 6: equal to the value built from the patches",
        ], "\(watch.output)\(watch.error)")

      // Without an argument it takes $ARBOR_SOCKET, and starts from the rows there are.
      let again = try await Self.run("python3", [Self.recipe("watch_counters.py")], socket: daemon.socket)
      #expect(again.status == .exited(0), "\(again.output)\(again.error)")
      #expect(again.lines.first == "watching /counters from revision 6: counts = [1]", "\(again.output)")
      #expect(again.lines.dropFirst().first == "revision 7: counts = [1, 0]", "\(again.output)")
      #expect(again.lines.last == "state.get at revision 12: equal to the value built from the patches", "\(again.output)")
    }
  }

  @Test func theOneLinerIncrementsTheFirstCounterAndReadsItsCount() async throws {
    try await withDaemon { daemon, _ in
      for arguments in [["call", "/", "addButtonTapped"], ["call", "/counters/0/counter", "incrementTapped"], ["call", "/counters/0/counter", "incrementTapped"]] {
        let call = try await withDeadline("arborctl \(arguments.joined(separator: " "))") {
          try await Subprocess.run(
            .path(.init(ArborctlTests.binary())), arguments: Arguments(arguments),
            environment: .inherit.updating(["ARBOR_SOCKET": daemon.socket]), output: .discarded, error: .string(limit: 1 << 20))
        }
        #expect(call.terminationStatus == .exited(0), "\(call.standardError)")
      }
      let oneLiner = try await Self.run("sh", [Self.recipe("oneliner.sh")], socket: daemon.socket)
      #expect(oneLiner.status == .exited(0), "\(oneLiner.error)")
      #expect(oneLiner.lines == [#"{"result":null,"revision":4}"#, "3"], "\(oneLiner.output)\(oneLiner.error)")
    }
  }

  @Test func todosUndoStepsBackThroughTheListsHistory() async throws {
    try await withDaemon(binary: TodosCalls.todosd()) { daemon, _ in
      let run = try await Self.run("bash", [Self.recipe("todos-undo.sh")], socket: daemon.socket)
      #expect(run.status == .exited(0), "\(run.error)")
      #expect(
        run.lines == [
          "remaining after marking Eggs done: 2",
          "undo: can redo true",
          "remaining after the undo: 3",
          "remaining after the redo: 2",
          "undid 4 more steps; items left: 0",
        ], "\(run.output)\(run.error)")
    }
  }

  @Test(arguments: ["counters-report.sh", "watch_counters.py", "oneliner.sh", "todos-undo.sh"])
  func theDocumentShowsEachRecipeAsItIs(_ name: String) throws {
    let document = try String(contentsOf: Self.root.appendingPathComponent("Docs/Scripting.md"), encoding: .utf8)
    let text = try String(contentsOfFile: Self.recipe(name), encoding: .utf8)
    #expect(!text.isEmpty)
    #expect(document.contains(text), "Docs/Scripting.md must show Examples/Scripting/\(name) exactly as it is")
  }
}
