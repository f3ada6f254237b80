/// Latencies in milliseconds, summarized the way redis-benchmark prints them: the median,
/// the 95th, 99th and 99.9th percentiles and the worst.
///
/// A percentile is a sample that was measured (the one at that rank), never interpolated.
///
/// ```swift
/// let summary = LatencySummary(milliseconds: [0.2, 0.1, 0.4, 0.3])
/// print(summary.p50, summary.p99, summary.max)  // 0.3 0.4 0.4
/// ```
public struct LatencySummary: Sendable, Equatable {
  /// How many latencies were measured.
  public var count: Int
  /// The median, in milliseconds.
  public var p50: Double
  /// The 95th percentile, in milliseconds.
  public var p95: Double
  /// The 99th percentile, in milliseconds.
  public var p99: Double
  /// The 99.9th percentile, in milliseconds (NaN when not measured).
  public var p999: Double
  /// The worst latency, in milliseconds.
  public var max: Double

  /// The figures as they are: for a summary measured elsewhere (such as redis-benchmark's).
  public init(count: Int, p50: Double, p95: Double, p99: Double, max: Double, p999: Double = .nan) {
    self.count = count
    self.p50 = p50
    self.p95 = p95
    self.p99 = p99
    self.p999 = p999
    self.max = max
  }

  /// The summary of `milliseconds`, in any order; all zero when there are none.
  public init(milliseconds: [Double]) {
    let sorted = milliseconds.sorted()
    self.init(
      count: sorted.count, p50: Self.percentile(sorted, 0.5), p95: Self.percentile(sorted, 0.95),
      p99: Self.percentile(sorted, 0.99), max: sorted.last ?? 0, p999: Self.percentile(sorted, 0.999))
  }

  /// The sample of rank `fraction` in `sorted` (ascending); 0 for none.
  static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[Swift.min(sorted.count - 1, Int(Double(sorted.count) * fraction))]
  }
}
