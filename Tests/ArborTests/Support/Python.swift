import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Runs Python scripts for tests that check our output against Python libraries
/// (`jsonschema`, `jsonpatch`).
///
/// The interpreter is `$ARBOR_PYTHON` when set, otherwise `python3` on `PATH`.
///
/// ```swift
/// try Python.requireModules(["jsonschema"])
/// let result = try Python.run("import sys; print(sys.stdin.read().upper())", stdin: Data("hi".utf8))
/// // result.status == 0, result.stdout == "HI\n"
/// ```
enum Python {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  /// Runs `python3 -c script` with `stdin` as its standard input, and waits for it.
  static func run(_ script: String, stdin: Data) async throws -> (status: Int32, stdout: String, stderr: String) {
    // The wait happens on a thread of its own: blocking the (two) threads of the
    // cooperative pool for seconds stalls other tests, and on this platform such a stall
    // was seen not to recover.
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(with: Result { try runBlocking(script, stdin: stdin) })
      }
      thread.start()
    }
  }

  private static func runBlocking(_ script: String, stdin: Data) throws -> (status: Int32, stdout: String, stderr: String) {
    // The interpreter is started with posix_spawn and waited for with waitpid, its input and
    // output in files: Foundation's Process on Linux monitors children with a run loop
    // thread and a SIGCHLD source, which stalled the parallel test run here.
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("arbor-python-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputPath = directory.appendingPathComponent("stdin").path
    let outputPath = directory.appendingPathComponent("stdout").path
    let errorPath = directory.appendingPathComponent("stderr").path
    try stdin.write(to: URL(fileURLWithPath: inputPath))

    let executable = try interpreter().path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, inputPath, O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

    let arguments: [UnsafeMutablePointer<CChar>?] = [executable, "-c", script].map { (text: String) in strdup(text) }
    defer { arguments.forEach { free($0) } }
    var argv = arguments + [nil]
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

  static func requireModules(_ names: [String]) async throws {
    let list = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    let script = """
      import importlib
      for name in \(list):
          try:
              importlib.import_module(name)
          except ImportError:
              print(name)
      """
    let result = try await run(script, stdin: Data())
    guard result.status == 0 else {
      throw Failure(description: "Python could not check its modules (status \(result.status)):\n\(result.stderr)")
    }
    if let missing = result.stdout.split(whereSeparator: \.isNewline).first {
      throw Failure(
        description:
          "Python module '\(missing)' is missing: run `make python-deps` (installs jsonpatch and jsonschema into .build/python)"
      )
    }
  }

  /// `$ARBOR_PYTHON`, or the first executable `python3` on `PATH`.
  static func interpreter() throws -> URL {
    let environment = ProcessInfo.processInfo.environment
    if let configured = environment["ARBOR_PYTHON"], !configured.isEmpty {
      guard FileManager.default.isExecutableFile(atPath: configured) else {
        throw Failure(description: "ARBOR_PYTHON is '\(configured)', which is not an executable file")
      }
      return URL(fileURLWithPath: configured)
    }
    for directory in (environment["PATH"] ?? "").split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("python3")
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    throw Failure(description: "python3 is not on PATH: install Python 3, or set ARBOR_PYTHON to an interpreter")
  }
}

/// Reads a file handle to its end on a thread of its own.
