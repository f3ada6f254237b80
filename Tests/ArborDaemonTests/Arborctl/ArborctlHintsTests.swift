import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

/// What arborctl says when something is wrong: where a path stops matching and what is
/// there instead, the name probably meant, no JSON-RPC wording; and a daemon that is
/// starting is waited for rather than reported missing.
@Suite(.startsProcesses) struct ArborctlHintsTests {
  /// Each mistake a newcomer made, with the exit code and the words that must be there
  /// (and those that must not).
  @Test func errorsSayWhatExistsAndWhatWasProbablyMeant() async throws {
    try await withDaemon { daemon, _ in
      _ = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let cases: [(arguments: [String], status: Int32, says: String)] = [
        (["get", "/counters/9/counter"], 1, "nothing in the state at '/counters/9/counter': /counters has 1 element (0)"),
        (["get", "/countrs"], 1, "nothing in the state at '/countrs': did you mean '/counters'?"),
        (["get", "/counters/x"], 1, "'x' is not an index: /counters has 1 element (0)"),
        (["get", "/counters/0/counter/count/deeper"], 1, "/counters/0/counter/count is a number, with nothing inside"),
        (["call", "/counter/0", "incrementTapped"], 1, "no model at '/counter/0': did you mean '/counters/0'?"),
        (["call", "/counters/3/counter", "incrementTapped"], 1, "no model at '/counters/3/counter': /counters has 1 element (0)"),
        (["call", "/counters/0/counter/count", "incrementTapped"], 1, "it holds a number that is not a model"),
        (["call", "/counters/0/counter", "incrementTaped"], 1, "has no intent 'incrementTaped': did you mean 'incrementTapped'?"),
        (["call", "/", "incrementTapped"], 1, "; CounterModel has one of that name, at /counters/0/counter"),
        (["rpc", "state.gett"], 1, "no method state.gett (did you mean state.get?)"),
        (["get", "counters/0/counter"], 2, "paths start with / (did you mean /counters/0/counter?)"),
        (["call", "counters/0/counter", "incrementTapped"], 2, "paths start with / (did you mean /counters/0/counter?)"),
        (["at", "-1", "/"], 2, "a revision is a number from 0 up, not -1"),
        (["call", "/", "removeButtonTapped", "id=3"], 1, "parameter 'id' of removeButtonTapped is invalid: expected String, found number"),
      ]
      for (arguments, status, says) in cases {
        let outcome = try await ArborctlTests.arborctl(arguments, socket: daemon.socket)
        let command = "arborctl \(arguments.joined(separator: " "))"
        #expect(outcome.status == .exited(status), "\(command): \(outcome.status), \(outcome.error)")
        #expect(outcome.error.contains(says), "\(command) said: \(outcome.error)")
        for wording in ["Invalid params:", "Method not found:", "DecodingError", "Expected to decode", "is invalid for '<revision>'", "CounterRowModel.removeButtonTapped"] {
          #expect(!outcome.error.contains(wording), "\(command) said \(wording): \(outcome.error)")
        }
      }
      // The hint is in the daemon's error too, for programs.
      let json = try await ArborctlTests.arborctl(["get", "/countrs", "--json"], socket: daemon.socket)
      #expect((try? JSONValue(parsing: json.error))?["data"]?["hint"]?.stringValue?.hasPrefix("did you mean '/counters'?") == true, "\(json.error)")
    }
  }

  @Test func historySinceARevisionToComeSaysWhereTheTreeIs() async throws {
    try await withDaemon { daemon, _ in
      _ = try await ArborctlTests.arborctl(["call", "/", "addButtonTapped"], socket: daemon.socket)
      let outcome = try await ArborctlTests.arborctl(["history", "--since", "999"], socket: daemon.socket)
      #expect(outcome.status == .exited(0), "\(outcome.error)")
      #expect(outcome.output.isEmpty, "\(outcome.output)")
      #expect(outcome.error.contains("the tree is at revision 1: nothing comes after 999 yet"), "\(outcome.error)")
      let quiet = try await ArborctlTests.arborctl(["history", "--since", "999", "-q"], socket: daemon.socket)
      #expect(quiet.status == .exited(0) && quiet.error.isEmpty, "\(quiet.error)")
    }
  }

  /// A command typed while the daemon starts is answered once it listens, within
  /// --timeout; the socket's name says which daemon to start when none comes.
  @Test func aDaemonThatIsStartingIsWaitedFor() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let socket = directory + "/d.sock"
    let status = Task { try await ArborctlTests.arborctl(["status", "--json", "--timeout", "60"], socket: socket) }
    try await Task.sleep(for: .milliseconds(500))
    try await withDaemon(directory: directory) { daemon, _ in
      let outcome = try await status.value
      #expect(outcome.status == .exited(0), "\(outcome.error)")
      #expect(outcome.json?["name"] == "counterfactd", "\(outcome.output)")
    }
    // The daemon stopped and left nothing: within a short --timeout, the failure names it.
    let todos = try await ArborctlTests.arborctl(["status", "--timeout", "0.3"], socket: directory + "/todosd.sock")
    #expect(todos.status == .exited(3), "\(todos.error)")
    #expect(todos.error.contains("Is todosd running? Start `todosd`") && !todos.error.contains("make run"), "\(todos.error)")
    // A folder that does not exist is not waited for.
    let started = ContinuousClock.now
    let nowhere = try await ArborctlTests.arborctl(["status", "--timeout", "30"], socket: directory + "/gone/todosd.sock")
    #expect(nowhere.status == .exited(3), "\(nowhere.error)")
    #expect(ContinuousClock.now - started < .seconds(20), "arborctl waited for a folder that does not exist")
  }
}
