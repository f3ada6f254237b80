import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs a program for a test: started with `posix_spawn`, its input and output in files
/// (no pipes to drain), waited for with `waitpid` on a thread of its own.
///
/// The wait happens off the cooperative pool: blocking its (two) threads for seconds
/// stalled the parallel test run on this platform, and the stall did not recover.
///
/// ```swift
/// let result = try await Subprocess.run("/usr/bin/env", ["echo", "hi"], stdin: Data())
/// // result.status == 0, result.stdout == "hi\n"
/// ```
enum Subprocess {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func run(_ executable: String, _ arguments: [String], stdin: Data) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await withCheckedThrowingContinuation { continuation in
      Thread {
        continuation.resume(with: Result { try runBlocking(executable, arguments, stdin: stdin) })
      }.start()
    }
  }

  private static func runBlocking(_ executable: String, _ arguments: [String], stdin: Data) throws -> (status: Int32, stdout: String, stderr: String) {
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
    var status: Int32 = 0
    while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
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
