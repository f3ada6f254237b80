import Arbor
import Foundation

/// Measures resident memory per model in a fresh process, so that memory freed by earlier
/// benchmarks cannot be reused and hide the cost.
enum MemoryProbe {
  /// Runs in the child process: creates `count` models of `kind` and prints the growth of
  /// the resident set, in bytes.
  static func runChild(kind: String, count: Int) {
    let before = Measure.residentBytes
    switch kind {
    case "arbor":
      let root = RootModel().withAnchor()
      root.children = (0..<count).map { _ in SmallModel() }
      let after = Measure.residentBytes
      print(after - before)
      withExtendedLifetime(root) {}
    case "observable":
      let objects = (0..<count).map { _ in SmallObservable() }
      let after = Measure.residentBytes
      print(after - before)
      withExtendedLifetime(objects) {}
    default:
      print(0)
    }
  }

  /// Runs in the parent: starts this executable again as a probe and reads its answer.
  static func measure(kind: String, count: Int) -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
    if !FileManager.default.isExecutableFile(atPath: process.executableURL!.path) {
      process.executableURL = Bundle.main.executableURL
    }
    process.arguments = ["__memory", kind, String(count)]
    let pipe = Pipe()
    process.standardOutput = pipe
    do {
      try process.run()
    } catch {
      return 0
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Int(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
  }
}
