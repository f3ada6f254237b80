import ArborTesting
import ConcurrencyExtras
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a program for a test: started with `posix_spawn`, its input and output in files
/// (no pipes to drain), waited for with `waitpid` on a thread of its own, with a deadline.
///
/// The wait happens off the cooperative pool, which has only as many threads as cores: a
/// test that blocks them holds up every other test of the parallel run. A program still
/// running at the deadline fails the test and is killed.
///
/// ```swift
/// let result = try await Subprocess.run("/usr/bin/env", ["echo", "hi"], stdin: Data())
/// // result.status == 0, result.stdout == "hi\n"
/// ```
enum Subprocess {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func run(
    _ executable: String, _ arguments: [String], stdin: Data, seconds: Double = 120,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    let name = URL(fileURLWithPath: executable).lastPathComponent
    let child = Child()
    return try await withDeadline(
      "\(name) \(arguments.first ?? "") … to exit", seconds: seconds,
      fileID: fileID, filePath: filePath, line: line, column: column
    ) {
      try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
          Thread {
            continuation.resume(with: Result { try runBlocking(executable, arguments, stdin: stdin, child: child) })
          }.start()
        }
      } onCancel: {
        child.stop()
      }
    }
  }

  /// The process a run started, to kill when the run is cancelled (at its deadline). It is
  /// killed by its id only while it has not been reaped, so the id is still its own.
  final class Child: Sendable {
    private struct State {
      var pid: pid_t?
      var stopped = false
      var reaped = false
    }
    private let state = LockIsolated(State())

    func started(_ pid: pid_t) {
      state.withValue { state in
        state.pid = pid
        if state.stopped { kill(pid, SIGKILL) }
      }
    }

    func stop() {
      state.withValue { state in
        state.stopped = true
        if let pid = state.pid, !state.reaped { kill(pid, SIGKILL) }
      }
    }

    /// Waits for the process to exit, then reaps it; returns its wait status.
    func wait() -> Int32 {
      guard let pid = state.value.pid else { return 0 }
      // Wait without reaping, so that the id stays taken while `stop` may still use it.
      var info = siginfo_t()
      while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) == -1 && errno == EINTR {}
      return state.withValue { state in
        state.reaped = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return status
      }
    }
  }

  private static func runBlocking(_ executable: String, _ arguments: [String], stdin: Data, child: Child) throws -> (status: Int32, stdout: String, stderr: String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-subprocess-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputPath = directory.appendingPathComponent("stdin").path
    let outputPath = directory.appendingPathComponent("stdout").path
    let errorPath = directory.appendingPathComponent("stderr").path
    try stdin.write(to: URL(fileURLWithPath: inputPath))

    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    let cArguments: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { (text: String) in strdup(text) }
    defer { cArguments.forEach { free($0) } }
    var argv = cArguments + [nil]
    var pid = pid_t()
    let spawned = posix_spawn(&pid, executable, &actions, nil, &argv, environ)
    guard spawned == 0 else {
      throw Failure(description: "could not start \(executable): \(String(cString: strerror(spawned)))")
    }
    child.started(pid)
    let status = child.wait()
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return (
      exitStatus,
      String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: outputPath))) ?? Data(), as: UTF8.self),
      String(decoding: (try? Data(contentsOf: URL(fileURLWithPath: errorPath))) ?? Data(), as: UTF8.self)
    )
  }

  /// The full path of `name` on `PATH`.
  static func find(_ name: String) throws -> String {
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
      let candidate = "\(directory)/\(name)"
      if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
    }
    throw Failure(description: "\(name) is not on PATH")
  }
}
