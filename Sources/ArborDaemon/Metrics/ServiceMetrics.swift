import ArborLocking
import ArborRPC
import CoreMetrics
import Prometheus

/// The daemon's figures in the Prometheus text format (`GET /metrics`), kept through
/// swift-metrics' API on a registry of the daemon's own (swift-prometheus): no global
/// `MetricsSystem` is bootstrapped, so two daemons in one process (tests, an app that
/// hosts its own) keep separate figures, and the user's own bootstrap is left alone.
///
/// Counters and histograms move as requests run; the figures that are a state (open
/// connections, watches, the revision, the journal's lag) are read when a scrape asks.
///
/// ```swift
/// let metrics = ServiceMetrics()
/// metrics.requestHandled(.stateGet, failed: false, took: .microseconds(40))
/// print(metrics.exposition(current: figures))
/// ```
final class ServiceMetrics: Sendable {
  /// The figures read at scrape time.
  struct Current: Sendable {
    var revision: UInt64
    var connections: Int
    var watches: Int
    var resyncs: Int
    var watchesClosed: Int
    var intentsInFlight: Int
    var intentsPerSecond: Double
    var uptime: Double
    var journalLag: UInt64
    var journalWrittenRevision: UInt64
    var journalBytes: Int
    var writesRefused: Bool
  }

  /// A method's counters, made once so that a request only touches atomics.
  private struct MethodFigures: Sendable {
    let succeeded: CoreMetrics.Counter
    let failed: CoreMetrics.Counter
    let latency: CoreMetrics.Timer
  }

  let registry = PrometheusCollectorRegistry()
  private let factory: PrometheusMetricsFactory
  /// Indexed like `ArborMethod.allCases`; the last entry is for names no method has.
  private let methods: [MethodFigures]
  private let intents: CoreMetrics.Counter
  private let transactionLatency: CoreMetrics.Timer
  private let transactionRevisions: CoreMetrics.Recorder
  private let snapshotLatency: CoreMetrics.Timer
  private let snapshotBytes: CoreMetrics.Recorder

  private let revision: Prometheus.Gauge
  private let connections: Prometheus.Gauge
  private let watches: Prometheus.Gauge
  private let resyncs: Prometheus.Counter
  private let watchesClosed: Prometheus.Counter
  private let intentsInFlight: Prometheus.Gauge
  private let intentsPerSecond: Prometheus.Gauge
  private let uptime: Prometheus.Gauge
  private let journalLag: Prometheus.Gauge
  private let journalWritten: Prometheus.Gauge
  private let journalBytes: Prometheus.Gauge
  private let writesRefused: Prometheus.Gauge
  /// What the scrape-time counters showed last, so that they only move forward.
  private let lastCounts = LockedState((resyncs: 0, closed: 0))

  /// From 10 µs to 10 s: a `state.get` of one leaf takes tens of microseconds, a restore of a
  /// large tree seconds.
  static let latencyBuckets: [Duration] = [
    .microseconds(10), .microseconds(25), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
    .milliseconds(1), .milliseconds(2.5), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
    .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(10),
  ]

  init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = Self.latencyBuckets
    factory.valueHistogramBuckets = [
      "arbor_journal_transaction_revisions": [1, 2, 5, 10, 50, 100, 500, 1_000, 10_000],
      "arbor_snapshot_bytes": [1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9],
    ]
    self.factory = factory
    let registry = self.registry

    func counter(_ name: String, _ labels: [(String, String)], _ help: String) -> CoreMetrics.Counter {
      CoreMetrics.Counter(
        label: name, dimensions: labels, handler: registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels), factory: factory)
    }
    func timer(_ name: String, _ labels: [(String, String)], _ help: String, buckets: [Duration] = ServiceMetrics.latencyBuckets) -> CoreMetrics.Timer {
      CoreMetrics.Timer(
        label: name, dimensions: labels,
        handler: registry.makeDurationHistogram(descriptor: Self.descriptor(name, help), labels: labels, buckets: buckets), factory: factory)
    }
    func histogram(_ name: String, _ help: String) -> CoreMetrics.Recorder {
      CoreMetrics.Recorder(
        label: name, dimensions: [], aggregate: true,
        handler: registry.makeValueHistogram(descriptor: Self.descriptor(name, help), labels: [], buckets: factory.valueHistogramBuckets[name] ?? []),
        factory: factory)
    }

    let names = ArborMethod.allCases.map(\.rawValue) + ["unknown"]
    methods = names.map { name in
      MethodFigures(
        succeeded: counter("arbor_requests_total", [("method", name), ("outcome", "ok")], "Requests handled, by method and outcome."),
        failed: counter("arbor_requests_total", [("method", name), ("outcome", "error")], "Requests handled, by method and outcome."),
        latency: timer(
          "arbor_request_duration_seconds", [("method", name)],
          "How long requests took to handle, by method (a durable reply's wait for the disk is in the journal's figure)."))
    }
    intents = counter("arbor_intents_total", [], "Intents that ran (synchronous and async).")
    transactionLatency = timer(
      "arbor_journal_transaction_duration_seconds", [], "Journal transactions: the write and, unless --fsync off, its sync.")
    transactionRevisions = histogram("arbor_journal_transaction_revisions", "Revisions per journal transaction (group commit).")
    snapshotLatency = timer("arbor_snapshot_duration_seconds", [], "Snapshots saved: encoding and writing.")
    snapshotBytes = histogram("arbor_snapshot_bytes", "The size of each snapshot saved, in bytes.")

    revision = registry.makeGauge(descriptor: Self.descriptor("arbor_revision", "The tree's current revision."))
    connections = registry.makeGauge(descriptor: Self.descriptor("arbor_connections", "Open connections (the Unix socket and the inspector's WebSockets)."))
    watches = registry.makeGauge(descriptor: Self.descriptor("arbor_watches", "Open state and event watches."))
    resyncs = registry.makeCounter(descriptor: Self.descriptor("arbor_watch_resyncs_total", "Resyncs sent to state watches whose reader fell behind."))
    watchesClosed = registry.makeCounter(descriptor: Self.descriptor("arbor_watches_closed_total", "Event watches closed because their reader fell behind."))
    intentsInFlight = registry.makeGauge(descriptor: Self.descriptor("arbor_intents_in_flight", "Intents running now."))
    intentsPerSecond = registry.makeGauge(descriptor: Self.descriptor("arbor_intents_per_second", "Intents per second over the last 10 s."))
    uptime = registry.makeGauge(descriptor: Self.descriptor("arbor_uptime_seconds", "Seconds since the daemon started."))
    journalLag = registry.makeGauge(descriptor: Self.descriptor("arbor_journal_lag_revisions", "Revisions committed and not yet written to the journal."))
    journalWritten = registry.makeGauge(descriptor: Self.descriptor("arbor_journal_written_revision", "The newest revision written to the journal."))
    journalBytes = registry.makeGauge(descriptor: Self.descriptor("arbor_journal_bytes", "The store's database and its write-ahead log, in bytes."))
    writesRefused = registry.makeGauge(descriptor: Self.descriptor("arbor_writes_refused", "1 while the journal refuses writes (a full or failing disk), else 0."))
  }

  /// A metric's name and help text, as swift-prometheus takes them (no unit suffix: the
  /// names carry theirs).
  private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
    MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
  }

  /// A request ended where it was handled; `method` is nil for a name no method has.
  func requestHandled(_ method: ArborMethod?, failed: Bool, took duration: Duration) {
    let figures = methods[method.map(Self.index) ?? methods.count - 1]
    (failed ? figures.failed : figures.succeeded).increment()
    figures.latency.recordNanoseconds(duration.nanoseconds)
  }

  func intentRan() { intents.increment() }

  func journalTransaction(took duration: Duration, revisions: Int) {
    transactionLatency.recordNanoseconds(duration.nanoseconds)
    transactionRevisions.record(revisions)
  }

  func snapshotSaved(took duration: Duration, bytes: Int) {
    snapshotLatency.recordNanoseconds(duration.nanoseconds)
    snapshotBytes.record(bytes)
  }

  /// The text a scrape gets, with the scrape-time figures set from `current` first.
  func exposition(current: Current) -> [UInt8] {
    revision.set(Int64(clamping: current.revision))
    connections.set(Int64(current.connections))
    watches.set(Int64(current.watches))
    intentsInFlight.set(Int64(current.intentsInFlight))
    intentsPerSecond.set(current.intentsPerSecond)
    uptime.set(current.uptime)
    journalLag.set(Int64(clamping: current.journalLag))
    journalWritten.set(Int64(clamping: current.journalWrittenRevision))
    journalBytes.set(Int64(current.journalBytes))
    writesRefused.set(Int64(current.writesRefused ? 1 : 0))
    let (newResyncs, newClosed) = lastCounts.withLock { last in
      defer { last = (max(last.resyncs, current.resyncs), max(last.closed, current.watchesClosed)) }
      return (current.resyncs - last.resyncs, current.watchesClosed - last.closed)
    }
    if newResyncs > 0 { resyncs.increment(by: Int64(newResyncs)) }
    if newClosed > 0 { watchesClosed.increment(by: Int64(newClosed)) }
    return registry.emitToBuffer()
  }

  private static func index(_ method: ArborMethod) -> Int {
    ArborMethod.allCases.firstIndex(of: method)!
  }
}

extension Duration {
  fileprivate var nanoseconds: Int64 {
    let (seconds, attoseconds) = components
    return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
  }
}
