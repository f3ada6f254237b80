import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A batch does not hold its event loop: while one client's batch of 100,000 requests is
/// handled, the other connections of that loop are still served, and the batch's reply is
/// complete and in order — also when it waits for the journal (`--fsync always`) or holds
/// an `async` request.
///
/// The daemon runs with `--event-loops 1`, so that the probe shares the batch's loop.
@Suite(.serialized, .startsProcesses) struct BatchFairnessTests {
  /// The bound on the probe's 99th percentile: 250 ms, or a tenth of the time the batch
  /// took when that is more.
  ///
  /// The issue asks for 50 ms from a release build; the tests run a debug build (5 to 10
  /// times slower per request) on two cores shared with the other suites' daemons and
  /// tests. Alone, the probe's p99 is 2–7 ms (worst round trip 40 ms). On a machine with a
  /// load of 18 (other builds and suites beside this one), the batch itself took 15 s
  /// instead of 2.5 s and the p99 rose to 0.69 s (4.5% of the batch's time): the daemon's
  /// thread, busy with the batch, waits for a core behind a dozen others, not because the
  /// loop is held. Before the change the loop was held for the whole batch, and the p99 was
  /// about 95% of the batch's own time (4.1 s of 4.3 s for `state.get`, 9.1 s of 9.4 s for
  /// `daemon.status`, 16.3 s of 16.7 s under that load), so the bound still tells the two
  /// apart by a factor of 9 however busy the machine is.
  static func p99Bound(batchTook took: Duration) -> Duration { max(.milliseconds(250), took / 10) }
  /// How often the probe means to send (it waits for each reply first).
  static let probeInterval = Duration.milliseconds(5)

  /// One line of `count` requests of `method`, ids 0 up.
  static func batchLine(_ method: String, count: Int, params: String? = nil) -> [UInt8] {
    var line: [UInt8] = [UInt8(ascii: "[")]
    line.reserveCapacity(count * 100)
    for id in 0..<count {
      if id > 0 { line.append(UInt8(ascii: ",")) }
      line += Array(#"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)""#.utf8)
      if let params { line += Array(#","params":\#(params)"#.utf8) }
      line.append(UInt8(ascii: "}"))
    }
    line += [UInt8(ascii: "]"), 0x0A]
    return line
  }

  @Test(arguments: ["state.get", "daemon.status"])
  func otherClientsOfTheLoopAreServedDuringALargeBatch(method: String) async throws {
    // At `debug`, a line the daemon cannot read is logged with its first bytes: a failure
    // of the probe then shows what reached the daemon.
    try await withDaemon(arguments: ["--event-loops", "1", "--log-level", "debug"]) { daemon, _ in
      let setup = try await daemon.connect()
      try await setup.call("intent.call", ["intent": "addButtonTapped"])
      setup.close()
      let count = 100_000
      let params = method == "state.get" ? #"{"path":"/counters/0/counter/count"}"# : "{}"
      let line = Self.batchLine(method, count: count, params: params)
      let batchClient = try LineClient(path: daemon.socket)
      let probeClient = try LineClient(path: daemon.socket)
      // The probe must be connected and served before the batch is sent.
      _ = try await onThread("the probe's first daemon.status") { try probeClient.call(#"{"jsonrpc":"2.0","id":0,"method":"daemon.status"}"#) }

      let stop = Atomic<Bool>(false)
      let probe = Task {
        try await onThread("the probe's daemon.status calls", seconds: 600) {
          var latencies: [Duration] = []
          var id = 1
          while !stop.load(ordering: .relaxed) {
            let start = ContinuousClock.now
            let reply = try probeClient.call(#"{"jsonrpc":"2.0","id":\#(id),"method":"daemon.status"}"#)
            let latency = ContinuousClock.now - start
            guard reply.contains(Array(#""name":"counterfactd""#.utf8)) else {
              throw HarnessError("the probe's call \(id) got \(String(decoding: reply.prefix(200), as: UTF8.self))")
            }
            latencies.record(latency, expectedInterval: Self.probeInterval)
            id += 1
            usleep(UInt32(Self.probeInterval.components.attoseconds / 1_000_000_000_000))
          }
          return latencies
        }
      }
      let started = ContinuousClock.now
      let reply = try await onThread("the reply to a batch of \(count) \(method) (\(line.count) bytes)", seconds: 600) {
        try batchClient.send(line)
        return try batchClient.readLine()
      }
      let took = ContinuousClock.now - started
      stop.store(true, ordering: .relaxed)
      var latencies = try await probe.value
      latencies.sort()
      let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
      let p50 = latencies[latencies.count / 2]
      print(
        "batch of \(count) \(method) (\(line.count) bytes): replied in \(took); probe on the same loop: \(latencies.count) samples, p50 \(p50), p99 \(p99), max \(latencies.last!)"
      )
      #expect(
        p99 < Self.p99Bound(batchTook: took),
        "daemon.status on the batch's event loop: p99 \(p99), max \(latencies.last!) over \(latencies.count) samples while the batch took \(took)")

      // The batch's reply: every request, in order, each answered.
      let value = try JSONValue(parsing: reply)
      guard case .array(let replies) = value else {
        Issue.record("the batch's reply is not an array: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        return
      }
      #expect(replies.count == count)
      var wrong: [String] = []
      for (index, member) in replies.enumerated() where wrong.count < 5 {
        let answered = method == "state.get" ? member["result"]?["value"] == 0 : member["result"]?["name"] == "counterfactd"
        if member["id"] != .int(Int64(index)) || !answered { wrong.append("#\(index): \(member)") }
      }
      #expect(wrong.isEmpty, "wrong replies: \(wrong)")
    }
  }

  /// Under `--fsync always` every intent's reply waits for the journal: a batch of intents
  /// long enough to be handled in many slices is answered once, in order, each reply with
  /// its own revision, after the journal holds them all.
  @Test func aLongBatchOfIntentsUnderFsyncAlwaysIsAnsweredInOrderOnceDurable() async throws {
    try await withDaemon(arguments: ["--fsync", "always", "--event-loops", "1"]) { daemon, _ in
      let setup = try await daemon.connect()
      try await setup.call("intent.call", ["intent": "addButtonTapped"])
      let count = 3_000
      let line = Self.batchLine(
        "intent.call", count: count, params: #"{"target":"/counters/0/counter","intent":"incrementTapped"}"#)
      let client = try LineClient(path: daemon.socket)
      let reply = try await onThread("the reply to \(count) durable intents", seconds: 300) {
        try client.send(line)
        return try client.readLine()
      }
      let status = try await setup.call("daemon.status")
      guard case .array(let replies) = try JSONValue(parsing: reply) else {
        Issue.record("not an array: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        return
      }
      #expect(replies.count == count)
      var revisions: [Int64] = []
      for (index, member) in replies.enumerated() {
        #expect(member["id"] == .int(Int64(index)))
        if case .int(let revision)? = member["result"]?["revision"] { revisions.append(revision) }
      }
      #expect(revisions == Array(2...Int64(count + 1)), "each intent its own revision, in order")
      if case .int(let written)? = status["journal"]?["writtenRevision"] {
        #expect(written >= Int64(count + 1), "the reply came before the journal held revision \(count + 1): \(status)")
      } else {
        Issue.record("no journal.writtenRevision in \(status)")
      }
      #expect(try await setup.call("state.get", ["path": "/counters/0/counter/count"])["value"] == .int(Int64(count)))
    }
  }

  /// A request that must suspend (here an intent called with `"wait": "settled"`) in the
  /// middle of a long batch: the rest runs after it, in order, and the reply is one array.
  @Test func aLongBatchWithASuspendingRequestKeepsItsOrder() async throws {
    try await withDaemon(arguments: ["--event-loops", "1"]) { daemon, _ in
      let setup = try await daemon.connect()
      try await setup.call("intent.call", ["intent": "addButtonTapped"])
      let count = 3_001
      var line: [UInt8] = [UInt8(ascii: "[")]
      for id in 0..<count {
        if id > 0 { line.append(UInt8(ascii: ",")) }
        let wait = id == 1_500 ? #","wait":"settled""# : ""
        line += Array(
          #"{"jsonrpc":"2.0","id":\#(id),"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"\#(wait)}}"#
            .utf8)
      }
      line += [UInt8(ascii: "]"), 0x0A]
      let client = try LineClient(path: daemon.socket)
      let reply = try await onThread("the reply to \(count) intents, one of them settled", seconds: 300) { [line] in
        try client.send(line)
        return try client.readLine()
      }
      guard case .array(let replies) = try JSONValue(parsing: reply) else {
        Issue.record("not an array: \(String(decoding: reply.prefix(200), as: UTF8.self))")
        return
      }
      #expect(replies.count == count)
      var revisions: [Int64] = []
      for (index, member) in replies.enumerated() {
        #expect(member["id"] == .int(Int64(index)))
        if case .int(let revision)? = member["result"]?["revision"] { revisions.append(revision) }
      }
      #expect(revisions == Array(2...Int64(count + 1)), "the requests ran in the order sent")
      #expect(try await setup.call("state.get", ["path": "/counters/0/counter/count"])["value"] == .int(Int64(count)))
    }
  }
}

// MARK: - Support

extension Array where Element == Duration {
  /// Records a round trip of a client that means to send every `expectedInterval` but
  /// waits for each reply first, corrected for coordinated omission (as HdrHistogram's
  /// `recordValueWithExpectedInterval` does): the calls it could not send while it waited
  /// count too, each with the wait it would have had. One 8 s stall is then 1,600
  /// samples, not one among a thousand quick ones.
  mutating func record(_ latency: Duration, expectedInterval: Duration) {
    append(latency)
    var missed = latency - expectedInterval
    while missed >= expectedInterval {
      append(missed)
      missed -= expectedInterval
    }
  }
}

/// Runs `body` on a thread of its own (blocking socket calls stay off the cooperative
/// pool), within a deadline.
func onThread<T: Sendable>(
  _ what: String, seconds: Double = Deadline.defaultSeconds, _ body: @escaping @Sendable () throws -> T
) async throws -> T {
  try await withDeadline(what, seconds: seconds) {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
      Thread.detachNewThread {
        continuation.resume(with: Result { try body() })
      }
    }
  }
}

/// A blocking Unix-socket client for tests that send and read very long lines. Every send
/// and receive has a timeout (`SO_SNDTIMEO`, `SO_RCVTIMEO`), so a thread using it never
/// waits forever; use it from ``onThread(_:seconds:_:)``.
final class LineClient: @unchecked Sendable {
  // Unchecked: one thread uses a client at a time; `fd` never changes after init.
  let fd: Int32
  private var pending: [UInt8] = []

  init(path: String, timeoutSeconds: Int = 120, receiveBuffer: Int? = nil) throws {
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0 else { throw HarnessError("socket() failed: \(errno)") }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    if var size = receiveBuffer.map(Int32.init) {
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { buffer in
      for (offset, byte) in path.utf8.enumerated() { buffer[offset] = byte }
    }
    let connected = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    guard connected == 0 else {
      Glibc.close(fd)
      throw HarnessError("connect to \(path) failed: \(errno)")
    }
  }

  /// Sends all of `bytes`; throws when the daemon closed the connection or took nothing
  /// for the timeout.
  func send(_ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
      let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      guard sent > 0 else { throw HarnessError("send failed after \(offset) of \(bytes.count) bytes: errno \(errno)") }
      offset += sent
    }
  }

  func send(_ text: String) throws { try send(Array((text + "\n").utf8)) }

  /// The next line (without its newline); throws at the end of the stream or a timeout.
  func readLine() throws -> [UInt8] {
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    var scanned = 0
    while true {
      if let newline = pending.withUnsafeBytes({ bytes -> Int? in
        guard scanned < bytes.count, let found = memchr(bytes.baseAddress! + scanned, 0x0A, bytes.count - scanned) else { return nil }
        return bytes.baseAddress!.distance(to: UnsafeRawPointer(found))
      }) {
        let line = Array(pending[..<newline])
        pending.removeFirst(newline + 1)
        return line
      }
      scanned = pending.count
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      guard count > 0 else {
        throw HarnessError(count == 0 ? "the daemon closed the connection" : "recv failed: errno \(errno)")
      }
      pending.append(contentsOf: chunk[..<count])
    }
  }

  /// True once the daemon has closed the connection (after what was pending is read).
  func readsEnd() -> Bool {
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
      if count == 0 { return true }
      if count < 0 { return errno == ECONNRESET }
    }
  }

  /// Sends one request line and returns the reply line.
  func call(_ request: String) throws -> [UInt8] {
    try send(request)
    return try readLine()
  }

  deinit { Glibc.close(fd) }
}
