import ArborJSON
import Foundation

/// What `arborctl top` shows for one interval: the daemon's state now and its rates since
/// the previous sample.
struct TopFigures: Sendable {
  struct MethodRow: Sendable {
    var method: String
    var perSecond: Double
    var errorsPerSecond: Double
    /// Latency over the interval, in milliseconds; nil when no request of it ended.
    var p50: Double?
    var p99: Double?
  }

  var name: String
  var revision: Double
  var connections: Double
  var watches: Double
  var intentsPerSecond: Double
  var requestsPerSecond: Double
  var methods: [MethodRow]
  var resyncs: Double
  var closedWatches: Double
  var journalLag: Double
  var journalWrittenRevision: Double
  var journalBytes: Double
  var transactionP99: Double?
  var snapshots: Double
  var writesRefused: Bool

  init(name: String, now: MetricSamples, before: MetricSamples, seconds: Double) {
    let seconds = max(seconds, 0.001)
    func rate(_ name: String, _ labels: [String: String] = [:]) -> Double {
      max(0, now.value(name, labels) - before.value(name, labels)) / seconds
    }
    func milliseconds(_ value: Double?) -> Double? { value.map { $0 * 1000 } }
    self.name = name
    revision = now.value("arbor_revision")
    connections = now.value("arbor_connections")
    watches = now.value("arbor_watches")
    intentsPerSecond = rate("arbor_intents_total")
    requestsPerSecond = rate("arbor_requests_total")
    methods = now.labelValues("arbor_requests_total", "method").map { method in
      MethodRow(
        method: method, perSecond: rate("arbor_requests_total", ["method": method]),
        errorsPerSecond: rate("arbor_requests_total", ["method": method, "outcome": "error"]),
        p50: milliseconds(now.quantile(0.5, of: "arbor_request_duration_seconds", ["method": method], since: before)),
        p99: milliseconds(now.quantile(0.99, of: "arbor_request_duration_seconds", ["method": method], since: before)))
    }.filter { $0.perSecond > 0 }.sorted { $0.perSecond > $1.perSecond }
    resyncs = now.value("arbor_watch_resyncs_total")
    closedWatches = now.value("arbor_watches_closed_total")
    journalLag = now.value("arbor_journal_lag_revisions")
    journalWrittenRevision = now.value("arbor_journal_written_revision")
    journalBytes = now.value("arbor_journal_bytes")
    transactionP99 = milliseconds(now.quantile(0.99, of: "arbor_journal_transaction_duration_seconds", since: before))
    snapshots = now.value("arbor_snapshot_duration_seconds_count")
    writesRefused = now.value("arbor_writes_refused") > 0
  }

  /// One JSON object per interval (piped output).
  var json: JSONValue {
    func number(_ value: Double?) -> JSONValue { value.map { .double(($0 * 1000).rounded() / 1000) } ?? .null }
    return [
      "name": .string(name), "revision": .int(Int64(revision)), "connections": .int(Int64(connections)),
      "watches": .int(Int64(watches)), "intentsPerSecond": number(intentsPerSecond), "requestsPerSecond": number(requestsPerSecond),
      "methods": .array(
        methods.map { row in
          [
            "method": .string(row.method), "perSecond": number(row.perSecond), "errorsPerSecond": number(row.errorsPerSecond),
            "p50Milliseconds": number(row.p50), "p99Milliseconds": number(row.p99),
          ]
        }),
      "resyncs": .int(Int64(resyncs)), "closedWatches": .int(Int64(closedWatches)), "journalLag": .int(Int64(journalLag)),
      "journalWrittenRevision": .int(Int64(journalWrittenRevision)), "journalBytes": .int(Int64(journalBytes)),
      "journalTransactionP99Milliseconds": number(transactionP99), "snapshots": .int(Int64(snapshots)),
      "writesRefused": .bool(writesRefused),
    ]
  }

  /// The screen on a terminal.
  var lines: [String] {
    func format(_ value: Double?, _ digits: Int = 1) -> String { value.map { String(format: "%.\(digits)f", $0) } ?? "—" }
    // A latency that has no sample in the interval is "no transactions", not "— ms".
    let transaction = transactionP99.map { "transaction p99 \(format($0, 2)) ms" } ?? "no transactions"
    var lines = [
      "\(name)  revision \(Int(revision))  \(HumanUnits.count(Int(connections), "connection"))  \(HumanUnits.count(Int(watches), "watch", plural: "watches"))"
        + (writesRefused ? "  WRITES REFUSED" : ""),
      "intents \(format(intentsPerSecond))/s  requests \(format(requestsPerSecond))/s",
      "journal: written \(Int(journalWrittenRevision)), lag \(Int(journalLag)), \(HumanUnits.bytes(journalBytes)), "
        + "\(transaction), \(HumanUnits.count(Int(snapshots), "snapshot"))",
      "watches: \(HumanUnits.count(Int(resyncs), "resync")), \(Int(closedWatches)) closed for falling behind",
      "",
      row("METHOD", ["REQ/S", "ERR/S", "P50 ms", "P99 ms"]),
    ]
    for row in methods {
      lines.append(
        self.row(row.method, [format(row.perSecond), format(row.errorsPerSecond), format(row.p50, 2), format(row.p99, 2)]))
    }
    if methods.isEmpty { lines.append("(no requests in this interval)") }
    return lines
  }

  /// A method's name, then its columns right-aligned.
  private func row(_ name: String, _ columns: [String]) -> String {
    name.padding(toLength: 18, withPad: " ", startingAt: 0) + columns.map { String(repeating: " ", count: max(0, 9 - $0.count)) + $0 }.joined()
  }
}
