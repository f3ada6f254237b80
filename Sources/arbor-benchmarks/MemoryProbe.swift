import Arbor
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Measures resident memory per model in a fresh process, so that memory freed by earlier
/// benchmarks cannot be reused and hide the cost.
enum MemoryProbe {
  /// Runs in the child process: creates `count` models of `kind` and prints the growth of
  /// the resident set, in bytes, then the growth once glibc has given back the freed
  /// memory it keeps (`malloc_trim`, as the daemon does after large work): what building
  /// them needed at its peak, and what they hold.
  static func runChild(kind: String, count: Int) {
    let before = Measure.residentBytes
    func report(_ after: Int) {
      trim()
      print(after - before, Measure.residentBytes - before)
    }
    switch kind {
    case "arbor":
      let root = RootModel().withAnchor()
      root.children = (0..<count).map { _ in SmallModel() }
      report(Measure.residentBytes)
      withExtendedLifetime(root) {}
    case "arbor-unanchored":
      // The models alone, before a tree holds them: their values and contexts.
      let models = (0..<count).map { _ in SmallModel() }
      report(Measure.residentBytes)
      withExtendedLifetime(models) {}
    case "observable":
      let objects = (0..<count).map { _ in SmallObservable() }
      report(Measure.residentBytes)
      withExtendedLifetime(objects) {}
    default:
      print(0, 0)
    }
  }

  /// glibc's `malloc_trim(0)`, looked up at run time (Swift's Glibc module does not
  /// import `malloc.h`).
  private static func trim() {
    #if canImport(Glibc)
      typealias Trim = @convention(c) (Int) -> Int32
      guard let process = dlopen(nil, RTLD_NOW), let address = dlsym(process, "malloc_trim") else { return }
      _ = unsafeBitCast(address, to: Trim.self)(0)
    #endif
  }

  /// Runs in the parent: starts this executable again as a probe and reads its answer:
  /// the resident growth, and the growth after `malloc_trim`.
  static func measure(kind: String, count: Int) -> (peak: Int, held: Int) {
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
      return (0, 0)
    }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let numbers = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
    guard numbers.count == 2 else { return (0, 0) }
    return (numbers[0], numbers[1])
  }
}
