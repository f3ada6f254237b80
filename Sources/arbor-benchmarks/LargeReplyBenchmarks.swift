import ArborClient
import ArborLoad
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// Whether one large reply holds up the other clients: a daemon hosting a tree of
/// 100,000 models, a reader that gets the whole tree (`state.get` of the root) again and
/// again, and probe clients that meanwhile call an intent or get a leaf once a
/// millisecond each. The probes' latencies during the reads are printed next to the same
/// probes' with no reader, in the same run, against the same daemon.
///
/// A probe's latencies are corrected for coordinated omission, as HdrHistogram's
/// `recordValueWithExpectedInterval` does: a round trip of L ms also counts L − 1,
/// L − 2, … ms, the calls the probe could not send while it waited.
///
///   arbor-benchmarks large-reply [--quick] [--runs N]
struct LargeReplyBenchmarks {
  let quick: Bool
  let runs: Int
  var models: Int { quick ? 10_000 : 100_000 }
  /// Whole-tree reads per run.
  var reads: Int { quick ? 3 : 10 }
  static let probes = 8
  static let interval = 1.0

  private func print(_ items: String...) {
    Swift.print(items.joined(separator: " "))
    fflush(nil)
  }

  func run() async {
    raiseFileLimit()
    let directory = NSTemporaryDirectory() + "arbor-large-reply-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory + "/state", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
      try await measure(directory)
    } catch {
      print("the large-reply benchmark failed: \(error)")
    }
  }

  private func measure(_ directory: String) async throws {
    print("\n## A reader of the whole \(models)-model tree beside \(Self.probes) probes (an intent or a leaf's get each, every \(Self.interval) ms)")
    _ = try await LargeTreeStore.build(at: directory + "/state/arbor.sqlite", models: models, revisions: 0)
    let socket = directory + "/d.sock"
    let daemon = try spawnDaemon(socket: socket, state: directory + "/state")
    defer {
      daemon.terminate()
      daemon.waitUntilExit()
    }
    try await waitForDaemon(socket, daemon)
    print(
      pad("run", 5), pad("probes", 9), pad("p50 ms", 8), pad("p99 ms", 9), pad("max ms", 9), pad("samples", 9),
      pad("whole-tree get ms (min–max)", 28), "reply MB")
    var alone: [Double] = []
    var beside: [Double] = []
    for run in 1...runs {
      // The baseline first: the probes alone, as long as the reads will take.
      let ((readTimes, replyBytes), withReader) = try await LineLoad.onThread {
        try Self.probed(socket: socket) { try Self.readWholeTree(socket: socket, times: reads) }
      }
      let seconds = readTimes.reduce(0, +) / 1_000
      let (_, withoutReader) = try await LineLoad.onThread {
        try Self.probed(socket: socket) { () -> ([Double], Int) in
          usleep(UInt32(seconds * 1e6))
          return ([], 0)
        }
      }
      alone.append(withoutReader.p99)
      beside.append(withReader.p99)
      for (name, figures) in [("alone", withoutReader), ("beside", withReader)] {
        print(
          pad("\(run)", 5), pad(name, 9), pad(String(format: "%.3f", figures.p50), 8), pad(String(format: "%.3f", figures.p99), 9),
          pad(String(format: "%.1f", figures.max), 9), pad("\(figures.count)", 9),
          name == "beside" ? pad(range(readTimes, "%.0f"), 28) : pad("", 28),
          name == "beside" ? String(format: "%.1f", Double(replyBytes) / 1e6) : "")
      }
    }
    print(
      "\nprobes' p99: alone \(range(alone, "%.3f")) ms, beside the reader \(range(beside, "%.3f")) ms "
        + String(format: "(%.1f× the baseline's median)", median(beside) / median(alone)))
  }

  /// Runs `work` while the probes call; returns its result and the probes' latencies.
  private static func probed<T: Sendable>(socket: String, _ work: @escaping @Sendable () throws -> T) throws -> (T, LatencySummary) {
    let stop = Atomic<Bool>(false)
    let collected = Mutex<(latencies: [Double], failure: (any Error)?)>(([], nil))
    let finished = DispatchSemaphore(value: 0)
    let lines = [
      #"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/children/5","intent":"increment"}}"#,
      #"{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"path":"/children/7/value"}}"#,
    ].map { Array($0.utf8) + [0x0A] }
    let sockets = try (0..<probes).map { _ in try RawSocket(connectingTo: socket) }
    defer { for socket in sockets { socket.close() } }
    for index in 0..<probes {
      let thread = Thread {
        var socket = sockets[index]
        var latencies: [Double] = []
        var failure: (any Error)?
        let line = lines[index % lines.count]
        var next = DispatchTime.now().uptimeNanoseconds
        do {
          while !stop.load(ordering: .relaxed) {
            let now = DispatchTime.now().uptimeNanoseconds
            if now < next { usleep(UInt32((next - now) / 1_000)) }
            let sent = DispatchTime.now().uptimeNanoseconds
            try socket.send(line)
            let reply = try socket.readLine()
            if LineLoad.isError(reply) { throw BenchmarkError("a probe got an error: \(String(decoding: reply.prefix(200), as: UTF8.self))") }
            let took = Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e6
            latencies.append(took)
            var missed = took - interval
            while missed > 0 {
              latencies.append(missed)
              missed -= interval
            }
            next = max(next + UInt64(interval * 1e6), DispatchTime.now().uptimeNanoseconds)
          }
        } catch {
          failure = error
        }
        collected.withLock {
          $0.latencies += latencies
          if $0.failure == nil { $0.failure = failure }
        }
        finished.signal()
      }
      thread.start()
    }
    // The probes settle before the work starts.
    usleep(200_000)
    let result = Result { try work() }
    stop.store(true, ordering: .relaxed)
    for _ in 0..<probes { finished.wait() }
    let (latencies, failure) = collected.withLock { ($0.latencies, $0.failure) }
    if let failure { throw failure }
    return (try result.get(), LatencySummary(milliseconds: latencies))
  }

  /// Gets the whole tree `times` times on one connection; the time of each get in ms and
  /// the size of the last reply.
  private static func readWholeTree(socket path: String, times: Int) throws -> ([Double], Int) {
    var socket = try RawSocket(connectingTo: path)
    defer { socket.close() }
    let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"state.get","params":{"path":""}}"#.utf8) + [0x0A]
    var took: [Double] = []
    var bytes = 0
    for _ in 0..<times {
      let sent = DispatchTime.now().uptimeNanoseconds
      try socket.send(line)
      let reply = try socket.readLine()
      took.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e6)
      if LineLoad.isError(reply) { throw BenchmarkError("the whole-tree get failed: \(String(decoding: reply.prefix(300), as: UTF8.self))") }
      bytes = reply.count
    }
    return (took, bytes)
  }

  private func spawnDaemon(socket: String, state: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    process.arguments = ["__daemon", "--socket", socket, "--state-dir", state, "--log-level", "warning", "--fsync", "off"]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
  }

  private func waitForDaemon(_ socket: String, _ daemon: Process) async throws {
    let deadline = ContinuousClock.now + .seconds(120)
    while ContinuousClock.now < deadline {
      if let connection = try? await ArborConnection.connect(to: socket) {
        _ = try await connection.call("daemon.status")
        connection.close()
        return
      }
      guard daemon.isRunning else { throw BenchmarkError("the daemon stopped while starting") }
      try await Task.sleep(for: .milliseconds(5))
    }
    throw BenchmarkError("the daemon did not answer within 120 s")
  }
}
