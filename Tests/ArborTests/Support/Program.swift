import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage

/// Runs a program for a test with swift-subprocess, with a deadline: a program still
/// running at the deadline fails the test at the caller's line and is stopped (the
/// deadline cancels the run, and swift-subprocess tears the child down).
///
/// ```swift
/// let result = try await Program.run("/usr/bin/env", ["echo", "hi"], stdin: Data())
/// // result.status == 0, result.stdout == "hi\n"
/// ```
enum Program {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func run(
    _ executable: String, _ arguments: [String], stdin: Data, seconds: Double = 120,
    fileID: StaticString = #fileID, filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    let name = URL(fileURLWithPath: executable).lastPathComponent
    ProcessSlots.expectHeld(name)
    let result = try await withDeadline(
      "\(name) \(arguments.first ?? "") … to exit", seconds: seconds,
      fileID: fileID, filePath: filePath, line: line, column: column
    ) {
      try await Subprocess.run(
        .path(FilePath(executable)), arguments: Arguments(arguments), input: .array(Array(stdin)),
        output: .string(limit: 16 << 20), error: .string(limit: 16 << 20))
    }
    let status: Int32
    switch result.terminationStatus {
    case .exited(let code): status = code
    case .signaled(let signal): status = 128 + signal
    }
    return (status, result.standardOutput, result.standardError)
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
