import Foundation

/// A load generator for a line protocol (one JSON-RPC message per line), built the way
/// redis-benchmark is: one thread, non-blocking sockets and epoll, no tasks. Its runs are
/// synchronous and block their thread: run them with ``onThread(_:)``, never on Swift's
/// cooperative pool.
///
/// ```swift
/// let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#.utf8) + [0x0A]
/// let result = try await LineLoad.onThread {
///   try LineLoad.roundTrips(socket: "/tmp/d.sock", clients: 50, requests: 100_000, pipeline: 4, request: line)
/// }
/// print(result.rps, result.p50, result.p99)
/// ```
public enum LineLoad {
  /// What one load run measured: how many replies in how long, and their latencies in
  /// milliseconds (each from writing its request until reading its reply).
  ///
  /// ```swift
  /// let result = try LineLoad.roundTrips(socket: path, clients: 1, requests: 1_000, request: line)
  /// print(String(format: "%.0f requests/s, p99 %.3f ms", result.rps, result.p99))
  /// ```
  public struct Result: Sendable, Equatable {
    /// Replies per second over the whole run.
    public var rps: Double
    /// How many replies were read.
    public var requests: Int
    /// The run's duration in seconds, from the first request written to the last reply read.
    public var seconds: Double
    /// The latencies' percentiles.
    public var latency: LatencySummary

    /// The median latency, in milliseconds.
    public var p50: Double { latency.p50 }
    /// The 95th percentile, in milliseconds.
    public var p95: Double { latency.p95 }
    /// The 99th percentile, in milliseconds.
    public var p99: Double { latency.p99 }
    /// The 99.9th percentile, in milliseconds.
    public var p999: Double { latency.p999 }
    /// The worst latency, in milliseconds.
    public var max: Double { latency.max }

    /// What a run measured: `requests` replies in `seconds`.
    public init(requests: Int, seconds: Double, latency: LatencySummary) {
      self.rps = seconds > 0 ? Double(requests) / seconds : 0
      self.requests = requests
      self.seconds = seconds
      self.latency = latency
    }

    /// Figures measured elsewhere, such as redis-benchmark's `--csv` line, to compare with;
    /// those not given are NaN.
    ///
    /// ```swift
    /// let redis = LineLoad.Result(rps: 120_000, p50: 0.207, p99: 0.311)
    /// ```
    public init(rps: Double, p50: Double, p95: Double = .nan, p99: Double, max: Double = .nan, requests: Int = 0, seconds: Double = .nan) {
      self.rps = rps
      self.requests = requests
      self.seconds = seconds
      self.latency = LatencySummary(count: requests, p50: p50, p95: p95, p99: p99, max: max)
    }
  }

  /// `clients` connections send `request` (one line, with its newline) `requests` times
  /// in all, each keeping `pipeline` requests in flight: it writes `pipeline` at once, then
  /// one more for every reply it reads, until its share is done. The shares differ by at
  /// most one, so exactly `requests` replies are read; with fewer requests than clients,
  /// only `requests` connections are opened.
  ///
  /// Replies are taken in the order their requests were sent (a connection of the daemon
  /// answers in order for synchronous work), which gives each its latency. A reply whose
  /// top-level member is `"error"` stops the run with a ``LoadError`` quoting it, and so
  /// does a closed connection or 10 s without any reply.
  ///
  /// `progress`, when given, is called on this thread with the number of replies read so
  /// far, at most 10 times a second (not at the end: the result says that).
  ///
  /// ```swift
  /// let result = try LineLoad.roundTrips(
  ///   socket: path, clients: 2, requests: 200, pipeline: 4, request: line,
  ///   progress: { done in print("\(done) replies") })
  /// ```
  public static func roundTrips(
    socket path: String, clients: Int, requests: Int, pipeline: Int = 1, request: [UInt8],
    progress: ((Int) -> Void)? = nil
  ) throws -> Result {
    guard clients > 0, requests > 0, pipeline > 0 else {
      throw LoadError("clients, requests and pipeline must be at least 1 (got \(clients), \(requests), \(pipeline))")
    }
    let clients = Swift.min(clients, requests)
    let shares = (0..<clients).map { requests / clients + ($0 < requests % clients ? 1 : 0) }
    var sockets = try (0..<clients).map { _ in try RawSocket(connectingTo: path) }
    defer { for socket in sockets { socket.close() } }
    let poller = try Poller()
    defer { poller.close() }
    for (index, socket) in sockets.enumerated() {
      socket.setNonBlocking()
      try poller.add(socket.fd, token: index)
    }
    // `pipeline` requests back to back: a prefix of it is written in one call.
    let batch = Array([[UInt8]](repeating: request, count: pipeline).joined())
    // When each request in flight was written: client i's are a ring of `pipeline` slots
    // from i * pipeline, its nth request in slot n % pipeline.
    var sentAt = [UInt64](repeating: 0, count: clients * pipeline)
    var sent = [Int](repeating: 0, count: clients)
    var done = [Int](repeating: 0, count: clients)
    var latencies: [Double] = []
    latencies.reserveCapacity(requests)

    func send(_ count: Int, on index: Int) throws {
      let now = monotonicNanoseconds()
      for n in sent[index]..<(sent[index] + count) { sentAt[index * pipeline + n % pipeline] = now }
      sent[index] += count
      try sockets[index].send(batch[0..<(count * request.count)])
    }

    let started = monotonicNanoseconds()
    var nextProgress = started + 100_000_000
    for index in 0..<clients {
      try send(Swift.min(pipeline, shares[index]), on: index)
    }
    while latencies.count < requests {
      for index in try poller.wait(timeoutMilliseconds: 10_000) {
        guard try sockets[index].fill() else { throw LoadError("the daemon closed a connection") }
        var replies = 0
        while let line = sockets[index].nextLine() {
          let now = monotonicNanoseconds()
          if isError(line) { throw LoadError("the daemon answered with an error: \(String(decoding: line, as: UTF8.self))", kind: .errorReply) }
          latencies.append(Double(now - sentAt[index * pipeline + done[index] % pipeline]) / 1e6)
          done[index] += 1
          replies += 1
        }
        let more = Swift.min(replies, shares[index] - sent[index])
        if more > 0 { try send(more, on: index) }
      }
      if let progress {
        let now = monotonicNanoseconds()
        if now >= nextProgress {
          progress(latencies.count)
          nextProgress = now + 100_000_000
        }
      }
    }
    let seconds = Double(monotonicNanoseconds() - started) / 1e9
    return Result(requests: latencies.count, seconds: seconds, latency: LatencySummary(milliseconds: latencies))
  }

  /// Runs `work` on a thread of its own (8 MiB of stack) and returns its result, so that
  /// a blocking load never holds a thread of the cooperative pool.
  ///
  /// ```swift
  /// let result = try await LineLoad.onThread {
  ///   try LineLoad.roundTrips(socket: path, clients: 1, requests: 1_000, request: line)
  /// }
  /// ```
  public static func onThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      let thread = Thread {
        continuation.resume(with: Swift.Result { try work() })
      }
      thread.stackSize = 8 << 20
      thread.start()
    }
  }

  private static let errorMember = Array(#""error":"#.utf8)
  private static let resultMember = Array(#""result":"#.utf8)

  /// Whether a JSON-RPC reply is an error: it has `"error":` before any `"result":` (a
  /// result's own members come after its `"result":`; a string's quotes are escaped).
  ///
  /// ```swift
  /// LineLoad.isError(Array(#"{"id":1,"error":{"code":-32601}}"#.utf8)[...])   // true
  /// ```
  public static func isError(_ line: ArraySlice<UInt8>) -> Bool {
    guard let error = line.firstOffset(of: errorMember) else { return false }
    guard let result = line.firstOffset(of: resultMember) else { return true }
    return error < result
  }
}
