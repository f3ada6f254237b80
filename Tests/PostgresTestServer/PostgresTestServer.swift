import Foundation
import ProcessSlots
import Subprocess
import Synchronization
import SystemPackage

/// A real PostgreSQL server for the tests: Debian's, started once per test process by
/// `scripts/postgres-server.sh` in a temporary directory (its Unix socket there, no TCP),
/// and stopped when the process exits. Each test takes a database of its own.
///
/// ```swift
/// let address = try await PostgresTestServer.newDatabase()   // postgresql://postgres@/t_…?host=/tmp/…
/// ```
public enum PostgresTestServer {
  /// The server's directory and port, once started.
  private static let started = Mutex<Task<(directory: String, port: Int), any Error>?>(nil)
  /// The directory to stop at exit.
  private static let running = Mutex<String?>(nil)

  /// The repository's `scripts/postgres-server.sh`.
  public static var script: String {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("scripts/postgres-server.sh").path
  }

  /// The server, started on first use.
  public static func server() async throws -> (directory: String, port: Int) {
    let task = started.withLock { task in
      if let task { return task }
      let made = Task { try await start() }
      task = made
      return made
    }
    return try await task.value
  }

  /// A new, empty database: its address, for `--store`.
  public static func newDatabase() async throws -> String {
    let (directory, port) = try await server()
    let name = "t_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
    _ = try await run(["createdb", directory, name, String(port)])
    return address(directory: directory, port: port, database: name)
  }

  /// The address of `database` on the server.
  public static func address(directory: String, port: Int, database: String) -> String {
    "postgresql://postgres@/\(database)?host=\(directory)&port=\(port)"
  }

  /// Runs SQL on `address`'s database with psql; returns what it printed (unaligned,
  /// tuples only).
  @discardableResult
  public static func sql(_ statement: String, on address: String) async throws -> String {
    try await runProgram("/usr/bin/psql", [address, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", statement])
  }

  private static func start() async throws -> (directory: String, port: Int) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-pg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
    let port = 5432
    _ = try await run(["start", directory, String(port)])
    running.withLock { $0 = directory }
    atexit {
      guard let directory = PostgresTestServer.running.withLock({ $0 }) else { return }
      _ = system("/bin/bash '\(PostgresTestServer.script)' stop '\(directory)'")
      try? FileManager.default.removeItem(atPath: directory)
    }
    return (directory, port)
  }

  private static func run(_ arguments: [String]) async throws -> String {
    try await runProgram("/bin/bash", [script] + arguments)
  }

  /// Runs a program to its end without blocking a thread: its output, or an error with
  /// what it printed on standard error.
  private static func runProgram(_ path: String, _ arguments: [String]) async throws -> String {
    ProcessSlots.expectHeld(URL(fileURLWithPath: path).lastPathComponent)
    let result = try await Subprocess.run(
      .path(FilePath(path)), arguments: Arguments(arguments), output: .string(limit: 1 << 20), error: .string(limit: 1 << 20))
    guard result.terminationStatus.isSuccess else {
      throw PostgresTestServerError(
        "\(path) \(arguments.joined(separator: " ")) ended with \(result.terminationStatus): \(result.standardError)")
    }
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A PostgreSQL command of the tests that failed, with what it said.
public struct PostgresTestServerError: Error, CustomStringConvertible {
  public var description: String
  init(_ description: String) { self.description = description }
}
