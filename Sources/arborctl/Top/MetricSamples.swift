/// The samples of a Prometheus text exposition (`daemon.metrics`), by series.
///
/// ```swift
/// let samples = MetricSamples(parsing: "arbor_revision 3.0\n")
/// samples.value("arbor_revision")   // 3
/// ```
struct MetricSamples: Sendable {
  struct Sample: Sendable, Hashable {
    var name: String
    var labels: [String: String]
    var value: Double

    /// Whether its labels include `labels`.
    func has(_ labels: [String: String]) -> Bool {
      labels.allSatisfy { key, value in self.labels[key] == value }
    }
  }

  var samples: [Sample]

  init(parsing text: String) {
    samples = text.split(separator: "\n").compactMap { line -> Sample? in
      guard !line.hasPrefix("#"), let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else {
        return nil
      }
      let series = line[..<space]
      guard let brace = series.firstIndex(of: "{") else { return Sample(name: String(series), labels: [:], value: value) }
      var labels: [String: String] = [:]
      // `name{a="x",b="y"}`: label values here hold no quotes or commas.
      for pair in series[series.index(after: brace)...].dropLast().split(separator: ",") {
        let parts = pair.split(separator: "=", maxSplits: 1)
        guard parts.count == 2 else { continue }
        labels[String(parts[0])] = String(parts[1].dropFirst().dropLast())
      }
      return Sample(name: String(series[..<brace]), labels: labels, value: value)
    }
  }

  /// The sum of the samples named `name` whose labels include `labels`.
  func value(_ name: String, _ labels: [String: String] = [:]) -> Double {
    samples.filter { $0.name == name && $0.has(labels) }.reduce(0) { $0 + $1.value }
  }

  /// The values of label `label` among the samples named `name`.
  func labelValues(_ name: String, _ label: String) -> [String] {
    Array(Set(samples.filter { $0.name == name }.compactMap { $0.labels[label] })).sorted()
  }

  /// The cumulative buckets of histogram `name` (its `_bucket` samples) with `labels`, by
  /// upper bound.
  func buckets(_ name: String, _ labels: [String: String] = [:]) -> [(bound: Double, count: Double)] {
    samples.filter { $0.name == name + "_bucket" && $0.has(labels) }
      .compactMap { sample in
        guard let le = sample.labels["le"] else { return nil }
        return (le == "+Inf" ? .infinity : Double(le) ?? .infinity, sample.value)
      }
      .sorted { $0.bound < $1.bound }
  }

  /// The `quantile` of what histogram `name` recorded between `earlier` and these samples,
  /// interpolated within its bucket as Prometheus's `histogram_quantile` does; nil when
  /// nothing was recorded.
  func quantile(_ quantile: Double, of name: String, _ labels: [String: String] = [:], since earlier: MetricSamples) -> Double? {
    let now = buckets(name, labels)
    let before = Dictionary(earlier.buckets(name, labels).map { ($0.bound, $0.count) }, uniquingKeysWith: { first, _ in first })
    let counts = now.map { (bound: $0.bound, count: $0.count - (before[$0.bound] ?? 0)) }
    guard let total = counts.last?.count, total > 0 else { return nil }
    let rank = quantile * total
    var lower = 0.0
    var below = 0.0
    for bucket in counts {
      if bucket.count >= rank {
        if bucket.bound.isInfinite { return lower }
        let inBucket = bucket.count - below
        return inBucket > 0 ? lower + (bucket.bound - lower) * (rank - below) / inBucket : bucket.bound
      }
      lower = bucket.bound
      below = bucket.count
    }
    return lower
  }
}
