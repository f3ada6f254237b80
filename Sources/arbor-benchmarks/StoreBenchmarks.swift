import ArborLocking
import Arbor
import ArborClient
import ArborJSON
import ArborLoad
import ArborStore
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The durable store under load, each figure next to its baseline in the same run:
///
/// - durable intents per second with `--fsync always` (1 and 50 clients) next to
///   `redis-benchmark -s` against a Redis with `appendonly yes` and `appendfsync always`;
/// - the start of a daemon hosting a 100,000-model tree from a snapshot plus 10,000
///   journalled revisions, next to the in-process restore of the same snapshot;
/// - intent p99 while snapshots of that tree are written, next to p99 with none.
///
///   arbor-benchmarks store [--quick] [--runs N]
struct StoreBenchmarks {
  private func print(_ items: String...) {
    Swift.print(items.joined(separator: " "))
    fflush(nil)
  }

  let quick: Bool
  let runs: Int
  var models: Int { quick ? 10_000 : 100_000 }
  var revisions: Int { quick ? 1_000 : 10_000 }

  func run() async {
    raiseFileLimit()
    let directory = NSTemporaryDirectory() + "arbor-store-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    // $ARBOR_BENCH_KEEP keeps the stores (to profile a start on them, for instance).
    let keep = ProcessInfo.processInfo.environment["ARBOR_BENCH_KEEP"] != nil
    defer { if keep { print("kept \(directory)") } else { try? FileManager.default.removeItem(atPath: directory) } }
    // $ARBOR_BENCH_ONLY=durable or large runs one part.
    let only = ProcessInfo.processInfo.environment["ARBOR_BENCH_ONLY"]
    do {
      if only == nil || only == "durable" { try await durable(directory + "/durable") }
      if only == nil || only == "large" { try await largeTree(directory + "/large") }
    } catch {
      print("the store benchmark failed: \(error)")
    }
  }

  // MARK: - Durable intents

  private func durable(_ directory: String) async throws {
    try FileManager.default.createDirectory(atPath: directory + "/redis", withIntermediateDirectories: true)
    let loads = DaemonBenchmarks(quick: quick, runs: runs)
    let socket = directory + "/d.sock"
    let redisSocket = directory + "/redis.sock"
    guard let daemon = loads.start(DaemonBenchmarks.daemonBinary(), ["--socket", socket, "--state-dir", directory + "/state", "--fsync", "always", "--log-level", "warning"]) else {
      print("cannot start counterfactd; build it: swift build -c release --product counterfactd")
      return
    }
    defer { daemon.terminate(); daemon.waitUntilExit() }
    guard let redis = loads.start("redis-server", ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "yes", "--appendfsync", "always", "--dir", directory + "/redis"]) else {
      print("cannot start redis-server: install Debian's redis-server and redis-tools")
      return
    }
    defer {
      kill(redis.processIdentifier, SIGKILL)
      redis.waitUntilExit()
    }
    guard await loads.waitFor(socket), await loads.waitFor(redisSocket) else {
      print("the daemon or Redis did not start listening")
      return
    }
    let setup = try await ArborConnection.connect(to: socket)
    try await setup.call("intent.call", ["intent": "addButtonTapped"])
    setup.close()
    print("\n## Durable intents: counterfactd --fsync always vs Redis (appendonly yes, appendfsync always) SET, \(runs) runs each, ranges min–max\n")
    print(pad("clients", 8), pad("requests", 10), pad("arbor rps", 16), pad("redis rps", 16), pad("arbor p50 ms", 14), pad("redis p50 ms", 14), pad("arbor p99 ms", 14), pad("redis p99 ms", 14))
    for clients in [1, 50] {
      let requests = (clients == 1 ? 2_000 : 20_000) / (quick ? 10 : 1)
      var arbor: [LineLoad.Result] = []
      var baseline: [LineLoad.Result] = []
      for _ in 0..<runs {
        arbor.append(try await LineLoad.onThread {
          try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: DaemonBenchmarks.incrementLine)
        })
        if let result = loads.redisLoad(socket: redisSocket, clients: clients, requests: requests) { baseline.append(result) }
      }
      print(
        pad("\(clients)", 8), pad("\(requests)", 10), pad(range(arbor.map(\.rps), "%.0f"), 16), pad(range(baseline.map(\.rps), "%.0f"), 16),
        pad(range(arbor.map(\.p50), "%.3f"), 14), pad(range(baseline.map(\.p50), "%.3f"), 14),
        pad(range(arbor.map(\.p99), "%.3f"), 14), pad(range(baseline.map(\.p99), "%.3f"), 14))
    }
  }

  // MARK: - A large tree: start-up and snapshots

  private func largeTree(_ directory: String) async throws {
    let state = directory + "/state"
    try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
    print("\n## A tree of \(models) models: building a store with its snapshot and \(revisions) journalled revisions")
    let snapshot = try await buildStore(at: state + "/arbor.sqlite")
    if ProcessInfo.processInfo.environment["ARBOR_BENCH_KEEP"] != nil {
      try? FileManager.default.copyItem(atPath: state, toPath: directory + "/state-as-built")
    }
    let size = ((try? FileManager.default.attributesOfItem(atPath: state + "/arbor.sqlite"))?[.size] as? NSNumber)?.intValue ?? 0
    print("snapshot record \(snapshot.count / 1024) KiB; database \(size / 1024) KiB\n")

    print("## Start-up: the daemon (spawn until daemon.status answers) vs the in-process restore of the same snapshot, \(runs) runs each\n")
    var restores: [Double] = []
    var starts: [Double] = []
    let socket = directory + "/d.sock"
    for _ in 0..<runs {
      let began = ContinuousClock.now
      let restored = try RootModel.andAnchor(restoring: snapshot)
      restores.append(milliseconds(ContinuousClock.now - began))
      withExtendedLifetime(restored) {}
      starts.append(try await timeStart(socket: socket, state: state))
    }
    print(pad("", 34), pad("ms (min–max)", 16), "ratio of medians")
    print(pad("in-process restore of the snapshot", 34), pad(range(restores, "%.0f"), 16))
    print(pad("daemon start, snapshot + journal", 34), pad(range(starts, "%.0f"), 16), String(format: "%.2f×", median(starts) / median(restores)))

    print("\n## Intent latency while snapshots of the \(models)-model tree are written (--snapshot-interval 1: one after another) vs with none, \(runs) runs each\n")
    print(pad("clients", 8), pad("p99 none ms", 14), pad("p99 snapshots ms", 18), pad("p50 none ms", 14), pad("p50 snapshots ms", 18), pad("snapshots/run", 14), "ratio of p99 medians")
    for clients in [1, 50] {
      var none: [LineLoad.Result] = []
      var during: [LineLoad.Result] = []
      var saved: [Int] = []
      for _ in 0..<runs {
        none.append(try await latency(socket: socket, state: state, clients: clients, snapshots: false).0)
        let (result, count) = try await latency(socket: socket, state: state, clients: clients, snapshots: true)
        during.append(result)
        saved.append(count)
      }
      print(
        pad("\(clients)", 8), pad(range(none.map(\.p99), "%.3f"), 14), pad(range(during.map(\.p99), "%.3f"), 18),
        pad(range(none.map(\.p50), "%.3f"), 14), pad(range(during.map(\.p50), "%.3f"), 18),
        pad(range(saved.map(Double.init), "%.0f"), 14), String(format: "%.2f×", median(during.map(\.p99)) / median(none.map(\.p99))))
    }
  }

  /// A store holding the snapshot of a fresh tree and `revisions` journalled revisions.
  private func buildStore(at path: String) async throws -> Data {
    try await LargeTreeStore.build(at: path, models: models, revisions: revisions)
  }

  /// Spawns the daemon on the store and times until `daemon.status` answers; kills it
  /// (so that the store stays as it was for the next run).
  private func timeStart(socket: String, state: String) async throws -> Double {
    unlink(socket)
    let began = ContinuousClock.now
    let daemon = try spawnDaemon(socket: socket, state: state, extra: ["--snapshot-every", "1000000000", "--snapshot-interval", "1000000"])
    defer {
      kill(daemon.processIdentifier, SIGKILL)
      daemon.waitUntilExit()
    }
    while true {
      if let connection = try? await ArborConnection.connect(to: socket) {
        _ = try await connection.call("daemon.status")
        connection.close()
        return milliseconds(ContinuousClock.now - began)
      }
      guard daemon.isRunning else { throw BenchmarkError("the daemon stopped while starting") }
      try await Task.sleep(for: .milliseconds(2))
    }
  }

  /// Intent round trips on one model of the large tree, with snapshots written one after
  /// another (`--snapshot-interval 1`) or none; and how many snapshots the run saw.
  private func latency(socket: String, state: String, clients: Int, snapshots: Bool) async throws -> (LineLoad.Result, Int) {
    unlink(socket)
    let extra = snapshots ? ["--snapshot-every", "1000000000", "--snapshot-interval", "1"] : ["--snapshot-every", "1000000000", "--snapshot-interval", "1000000"]
    let daemon = try spawnDaemon(socket: socket, state: state, extra: extra)
    defer {
      daemon.terminate()
      daemon.waitUntilExit()
    }
    let status = try await connect(socket, while: daemon)
    let before = try await Self.snapshotsSaved(status)
    let firstRevision = try await Self.revision(status)
    // Long enough for several snapshots of one second's interval.
    let requests = (quick ? 10_000 : 100_000) * (clients == 1 ? 1 : 2)
    let line = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/children/5","intent":"increment"}}"#.utf8) + [0x0A]
    let result = try await LineLoad.onThread {
      try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: line)
    }
    let after = try await Self.snapshotsSaved(status)
    let made = try await Self.revision(status) - firstRevision
    status.close()
    guard made >= requests - clients else { throw BenchmarkError("only \(made) of \(requests) intents changed the tree") }
    return (result, after - before)
  }

  private static func revision(_ connection: ArborConnection) async throws -> Int {
    Int(try await connection.call("daemon.status").objectValue?["revision"]?.intValue ?? 0)
  }

  private static func snapshotsSaved(_ connection: ArborConnection) async throws -> Int {
    let status = try await connection.call("daemon.status")
    return Int(status.objectValue?["journal"]?.objectValue?["snapshotsSaved"]?.intValue ?? 0)
  }

  private func spawnDaemon(socket: String, state: String, extra: [String]) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
    process.arguments = ["__daemon", "--socket", socket, "--state-dir", state, "--log-level", "warning"] + extra
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
  }

  private func connect(_ socket: String, while daemon: Process) async throws -> ArborConnection {
    while true {
      if let connection = try? await ArborConnection.connect(to: socket) { return connection }
      guard daemon.isRunning else { throw BenchmarkError("the daemon stopped while starting") }
      try await Task.sleep(for: .milliseconds(5))
    }
  }
}

struct BenchmarkError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

func milliseconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
}

func median(_ values: [Double]) -> Double {
  let sorted = values.sorted()
  guard !sorted.isEmpty else { return .nan }
  return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
