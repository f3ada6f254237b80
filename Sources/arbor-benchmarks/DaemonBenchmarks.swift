import ArborClient
import ArborJSON
import ArborLoad
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon under load, next to Redis on a Unix socket as the baseline, in one run:
/// intent round trips (1 and 50 clients: requests per second, p50/p99 latency) against
/// `redis-benchmark -t set` with the same client counts, and the time for one change to
/// reach 1,000 watchers.
///
///   arbor-benchmarks daemon [--quick] [--runs N]
///
/// `counterfactd` is looked for next to this executable (or `$ARBOR_COUNTERFACTD`);
/// `redis-server` and `redis-benchmark` on `PATH` (Debian's redis-server, redis-tools).
struct DaemonBenchmarks {
  /// Prints and flushes, so that progress shows when the output is a pipe.
  private func print(_ items: String...) {
    Swift.print(items.joined(separator: " "))
    fflush(nil)
  }

  let requests: Int
  let runs: Int
  let watchers: Int
  let changes: Int

  init(quick: Bool, runs: Int) {
    requests = quick ? 5_000 : 50_000
    self.runs = runs
    watchers = 1_000
    changes = quick ? 50 : 200
  }

  func run() async {
    raiseFileLimit()
    let directory = NSTemporaryDirectory() + "arbor-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let socket = directory + "/d.sock"
    let redisSocket = directory + "/redis.sock"
    // $ARBOR_DAEMON_ARGS adds options of the daemon's (`--event-loops 1`, for instance).
    let extra = (ProcessInfo.processInfo.environment["ARBOR_DAEMON_ARGS"] ?? "").split(separator: " ").map(String.init)
    if !extra.isEmpty { print("counterfactd \(extra.joined(separator: " "))") }
    guard let daemon = start(Self.daemonBinary(), ["--socket", socket, "--state-dir", directory + "/state", "--max-connections", "4096", "--log-level", "warning"] + extra) else {
      print("cannot start counterfactd (\(Self.daemonBinary())); build it: swift build -c release --product counterfactd")
      return
    }
    defer { daemon.terminate(); daemon.waitUntilExit() }
    guard let redis = start("redis-server", ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "no"]) else {
      print("cannot start redis-server: install Debian's redis-server and redis-tools")
      return
    }
    // Redis with a Unix socket has been seen to outlive SIGTERM here: stop it for sure.
    defer {
      kill(redis.processIdentifier, SIGKILL)
      redis.waitUntilExit()
    }
    guard await waitFor(socket), await waitFor(redisSocket) else {
      print("the daemon or Redis did not start listening")
      return
    }
    print("\n## Daemon: intent round trips over the socket vs Redis SET (redis-benchmark), \(runs) runs each, ranges min–max")
    print("requests per run: \(requests); counterfactd and redis-server on this machine's 2 cores, with the load generator\n")
    do {
      let setup = try await ArborConnection.connect(to: socket)
      try await setup.call("intent.call", ["intent": "addButtonTapped"])
      setup.close()
      print(pad("clients", 8), pad("arbor rps", 18), pad("redis rps", 18), pad("arbor p50 ms", 14), pad("redis p50 ms", 14), pad("arbor p99 ms", 14), pad("redis p99 ms", 14))
      for clients in [1, 50] {
        var arbor: [LoadResult] = []
        var baseline: [LoadResult] = []
        for _ in 0..<runs {
          arbor.append(try await intentLoad(socket: socket, clients: clients))
          if let result = redisLoad(socket: redisSocket, clients: clients) { baseline.append(result) }
        }
        print(
          pad("\(clients)", 8), pad(range(arbor.map(\.rps), "%.0f"), 18), pad(range(baseline.map(\.rps), "%.0f"), 18),
          pad(range(arbor.map(\.p50), "%.3f"), 14), pad(range(baseline.map(\.p50), "%.3f"), 14),
          pad(range(arbor.map(\.p99), "%.3f"), 14), pad(range(baseline.map(\.p99), "%.3f"), 14))
      }
      print("\n## Daemon: one change reaching \(watchers) watchers (time from sending the intent until the last watcher has the patch)\n")
      print(pad("run", 6), pad("p50 ms", 10), pad("p99 ms", 10), pad("max ms", 10))
      for run in 1...runs {
        let fan = try await fanOut(socket: socket)
        print(pad("\(run)", 6), pad(String(format: "%.2f", fan.p50), 10), pad(String(format: "%.2f", fan.p99), 10), pad(String(format: "%.2f", fan.max), 10))
      }
    } catch {
      print("the daemon benchmark failed: \(error)")
    }
  }

  typealias LoadResult = LineLoad.Result

  /// The intent every round trip calls: one write to the tree, one reply.
  static let incrementLine = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#.utf8) + [0x0A]

  private func intentLoad(socket: String, clients: Int) async throws -> LoadResult {
    let requests = self.requests
    return try await LineLoad.onThread {
      try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: Self.incrementLine)
    }
  }

  func redisLoad(socket: String, clients: Int, requests: Int? = nil) -> LoadResult? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["redis-benchmark", "-s", socket, "-t", "set", "-c", String(clients), "-n", String(requests ?? self.requests), "--csv"]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return nil }
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    // "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms","max_latency_ms"
    guard let line = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("\"SET\"") }) else { return nil }
    let fields = line.split(separator: ",").map { Double($0.trimmingCharacters(in: CharacterSet(charactersIn: "\""))) }
    guard fields.count >= 7, let rps = fields[1], let p50 = fields[4], let p99 = fields[6] else { return nil }
    return LoadResult(rps: rps, p50: p50, p99: p99)
  }

  private func fanOut(socket: String) async throws -> LineLoad.FanOut {
    let watchers = self.watchers
    let changes = self.changes
    let watch = Array(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":"/counters/0/counter/count"}}"#.utf8) + [0x0A]
    return try await LineLoad.onThread {
      try LineLoad.fanOut(socket: socket, watchers: watchers, changes: changes, watch: watch, change: Self.incrementLine)
    }
  }

  func start(_ executable: String, _ arguments: [String]) -> Process? {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : "/usr/bin/env")
    process.arguments = executable.hasPrefix("/") ? arguments : [executable] + arguments
    process.standardOutput = FileHandle.nullDevice
    do {
      try process.run()
      return process
    } catch {
      return nil
    }
  }

  func waitFor(_ path: String) async -> Bool {
    for _ in 0..<500 {
      if FileManager.default.fileExists(atPath: path), let connection = try? await ArborConnection.connect(to: path) {
        connection.close()
        return true
      }
      try? await Task.sleep(for: .milliseconds(20))
    }
    return false
  }

  static func daemonBinary() -> String {
    if let configured = ProcessInfo.processInfo.environment["ARBOR_COUNTERFACTD"] { return configured }
    return URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
      .appendingPathComponent("counterfactd").path
  }
}

func range(_ values: [Double], _ format: String) -> String {
  guard let low = values.min(), let high = values.max() else { return "n/a" }
  return String(format: format, low) + "–" + String(format: format, high)
}

func pad(_ text: String, _ width: Int) -> String {
  text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
}

func raiseFileLimit() {
  var limit = rlimit()
  getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
  limit.rlim_cur = limit.rlim_max
  setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
}
