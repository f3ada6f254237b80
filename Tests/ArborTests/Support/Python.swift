import Foundation

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

  /// Runs `python3 -c script` with `stdin` as its standard input, and waits for it, for
  /// `seconds` at most (see `Program.run`).
  static func run(
    _ script: String, stdin: Data, seconds: Double = 120,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    try await Program.run(
      try interpreter().path, ["-c", script], stdin: stdin, seconds: seconds,
      fileID: fileID, filePath: filePath, line: line, column: column)
  }

  static func requireModules(
    _ names: [String],
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws {
    let list = String(decoding: try JSONEncoder().encode(names), as: UTF8.self)
    let script = """
      import importlib
      for name in \(list):
          try:
              importlib.import_module(name)
          except ImportError:
              print(name)
      """
    let result = try await run(script, stdin: Data(), fileID: fileID, filePath: filePath, line: line, column: column)
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
    guard let path = try? Program.find("python3") else {
      throw Failure(description: "python3 is not on PATH: install Python 3, or set ARBOR_PYTHON to an interpreter")
    }
    return URL(fileURLWithPath: path)
  }
}
