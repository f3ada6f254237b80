import ArborDaemon
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// One rule for where a daemon's socket lives, followed by the daemon, the Makefile's
/// `make run` and arborctl: the socket `make run-socket` prints is where counterfactd
/// listens when given none, and where arborctl finds it when told nothing.
@Suite(.startsProcesses) struct SocketRuleTests {
  static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

  /// What `make run-socket` prints with `environment` changed as given (nil removes).
  static func makeRunSocket(_ environment: [Environment.Key: String?]) async throws -> String {
    let result = try await withDeadline("make run-socket") {
      try await run(
        .name("make"), arguments: ["-s", "-C", root, "run-socket"], environment: .inherit.updating(environment),
        output: .string(limit: 4096), error: .string(limit: 4096))
    }
    #expect(result.terminationStatus == .exited(0), "\(result.standardError)")
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  @Test func makeRunTheDaemonAndArborctlAgreeWithARuntimeDirectory() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let runtime = directory + "/runtime"
    try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
    let environment: [Environment.Key: String?] = ["XDG_RUNTIME_DIR": runtime, "ARBOR_SOCKET": nil, "RUNTIME_DIRECTORY": nil]
    let socket = try await Self.makeRunSocket(environment)
    #expect(socket == runtime + "/arbor/counterfactd.sock")
    // The daemon, given no --socket, listens there; arborctl, given nothing, finds it.
    let configuration = Configuration(
      executable: .path(FilePath(DaemonHarness.binary())), arguments: ["--state-dir", directory + "/state"],
      environment: .inherit.updating(environment))
    let outcome = try await run(configuration, input: .none, output: .discarded, error: .discarded) { execution -> ArborctlTests.Outcome in
      defer { try? execution.send(signal: .terminate) }
      try await eventually("counterfactd to listen on \(socket)") { FileManager.default.fileExists(atPath: socket) }
      let result = try await withDeadline("arborctl status") {
        try await run(
          .path(FilePath(ArborctlTests.binary())), arguments: ["status"], environment: .inherit.updating(environment),
          output: .string(limit: 1 << 16), error: .string(limit: 1 << 16))
      }
      return ArborctlTests.Outcome(status: result.terminationStatus, output: result.standardOutput, error: result.standardError)
    }
    #expect(outcome.closureResult.status == .exited(0), "\(outcome.closureResult.error)")
    #expect(outcome.closureResult.json?["name"] == "counterfactd")
  }

  @Test func makeRunAndTheDaemonAgreeWithoutOne() async throws {
    let socket = try await Self.makeRunSocket(["XDG_RUNTIME_DIR": nil, "RUNTIME_DIRECTORY": nil])
    let options = try DaemonOptions.parse([])
    let daemon = DaemonPaths(name: "counterfactd", options: options, environment: [:])
    #expect(socket == daemon.socket)
    #expect(socket == (getuid() == 0 ? "/run/arbor/counterfactd.sock" : "/tmp/arbor-\(getuid())/counterfactd.sock"))
  }
}
