#if canImport(Glibc)
import Glibc
#endif

/// Timing and memory helpers for the benchmarks.
enum Measure {
  /// Runs `body` once and returns the elapsed time in nanoseconds.
  static func nanoseconds(_ body: () -> Void) -> Double {
    let clock = ContinuousClock()
    let elapsed = clock.measure(body)
    return Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
  }

  /// The best of `runs` measurements of `body`, in nanoseconds.
  static func best(of runs: Int, _ body: () -> Void) -> Double {
    (0..<runs).map { _ in nanoseconds(body) }.min() ?? 0
  }

  /// Resident set size in bytes, from /proc/self/statm.
  static var residentBytes: Int {
    guard let file = fopen("/proc/self/statm", "r") else { return 0 }
    defer { fclose(file) }
    var size = 0
    var resident = 0
    _ = withUnsafeMutablePointer(to: &size) { sizePointer in
      withUnsafeMutablePointer(to: &resident) { residentPointer in
        withVaList([sizePointer, residentPointer]) { vfscanf(file, "%ld %ld", $0) }
      }
    }
    return resident * Int(sysconf(Int32(_SC_PAGESIZE)))
  }
}

/// Prints aligned rows: a measurement, its baseline and their ratio.
struct Report {
  let title: String
  var rows: [(String, String, String, String)] = []

  init(_ title: String) { self.title = title }

  mutating func row(_ name: String, _ value: String, _ baseline: String, _ ratio: String) {
    rows.append((name, value, baseline, ratio))
  }

  func print() {
    Swift.print("\n## \(title)")
    let widths = [
      max(10, rows.map(\.0.count).max() ?? 0),
      max(10, rows.map(\.1.count).max() ?? 0),
      max(10, rows.map(\.2.count).max() ?? 0),
    ]
    func pad(_ text: String, _ width: Int) -> String { text + String(repeating: " ", count: max(0, width - text.count)) }
    for row in rows {
      Swift.print("| \(pad(row.0, widths[0])) | \(pad(row.1, widths[1])) | \(pad(row.2, widths[2])) | \(row.3)")
    }
  }
}

func format(_ value: Double, _ unit: String) -> String {
  if value >= 100 { return "\(Int(value.rounded())) \(unit)" }
  let scaled = (value * 100).rounded() / 100
  return "\(scaled) \(unit)"
}

func ratio(_ value: Double, _ baseline: Double) -> String {
  guard baseline > 0 else { return "-" }
  return "\((value / baseline * 100).rounded() / 100)x"
}
