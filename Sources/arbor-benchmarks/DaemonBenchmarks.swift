import ArborClient
import ArborJSON
import ArborLoad
import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon under load, next to Redis on a Unix socket as the baseline, in one run:
/// intent round trips against Redis SET with the same client (1 and 50 clients, driven by
/// one epoll thread and by a thread per client: requests per second, p50/p99/p99.9
/// latency), the time for one change to reach 1,000 watchers, and the instructions per
/// request of both servers under callgrind.
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
  let quick: Bool
  let runs: Int
  let watchers: Int
  let changes: Int

  init(quick: Bool, runs: Int) {
    requests = quick ? 5_000 : 50_000
    self.quick = quick
    self.runs = runs
    watchers = 1_000
    changes = quick ? 50 : 200
  }

  /// Only the instruction counts (`arbor-benchmarks instructions`): the figure that does
  /// not move with the machine's load, to steer the request path by.
  func instructions() async {
    let directory = NSTemporaryDirectory() + "arbor-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    await countInstructions(in: directory)
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
    // The NIO floor: this executable's `__line-echo`, answering each line and nothing else.
    let floorSocket = directory + "/floor.sock"
    guard let floor = start(Self.ownBinary(), ["__line-echo", floorSocket]) else {
      print("cannot start the line-echo floor server")
      return
    }
    defer {
      kill(floor.processIdentifier, SIGKILL)
      floor.waitUntilExit()
    }
    guard await waitFor(socket), await waitFor(redisSocket), await waitFor(floorSocket) else {
      print("the daemon, Redis or the floor server did not start listening")
      return
    }
    print("\n## Daemon: intent round trips over the socket vs Redis SET, the same client for both, \(runs) runs each, ranges min–max")
    print("requests per run: \(requests); counterfactd and redis-server on this machine's 2 cores, with the load generator")
    print("shapes: epoll = one thread, non-blocking sockets (as redis-benchmark); threads = one thread and one blocking connection per client (as many scripts)")
    print("CPU µs: the server's user + system CPU time per request over the run (/proc/PID/stat, every thread)")
    print("floor: a SwiftNIO server on the same event loops that answers each line with a fixed reply and does nothing else (`__line-echo`)\n")
    do {
      let setup = try await ArborConnection.connect(to: socket)
      try await setup.call("intent.call", ["intent": "addButtonTapped"])
      setup.close()
      print(
        pad("shape", 8), pad("clients", 8), pad("arbor rps", 16), pad("redis rps", 16), pad("arbor/redis", 12), pad("arbor CPU µs", 14),
        pad("redis CPU µs", 14), pad("arbor p50 ms", 14),
        pad("redis p50 ms", 14), pad("arbor p99 ms", 14), pad("redis p99 ms", 14), pad("arbor p999 ms", 14), pad("redis p999 ms", 14),
        pad("floor rps", 16), pad("floor/redis", 12), pad("floor CPU µs", 14))
      for shape in LoadShape.allCases {
        for clients in [1, 50] {
          var arbor: [LoadResult] = []
          var baseline: [LoadResult] = []
          var arborCPU: [Double] = []
          var redisCPU: [Double] = []
          var floorRuns: [LoadResult] = []
          var floorCPU: [Double] = []
          for _ in 0..<runs {
            let daemonBefore = CPUTime.seconds(of: daemon.processIdentifier)
            arbor.append(try await load(shape, socket: socket, clients: clients, request: Self.incrementLine))
            arborCPU.append((CPUTime.seconds(of: daemon.processIdentifier) - daemonBefore) / Double(requests) * 1e6)
            let redisBefore = CPUTime.seconds(of: redis.processIdentifier)
            baseline.append(try await load(shape, socket: redisSocket, clients: clients, request: Self.redisSet))
            redisCPU.append((CPUTime.seconds(of: redis.processIdentifier) - redisBefore) / Double(requests) * 1e6)
            let floorBefore = CPUTime.seconds(of: floor.processIdentifier)
            floorRuns.append(try await load(shape, socket: floorSocket, clients: clients, request: Self.incrementLine))
            floorCPU.append((CPUTime.seconds(of: floor.processIdentifier) - floorBefore) / Double(requests) * 1e6)
          }
          let floorRatios = zip(floorRuns, baseline).map { $0.rps / $1.rps }
          let ratios = zip(arbor, baseline).map { $0.rps / $1.rps }
          print(
            pad(shape.rawValue, 8), pad("\(clients)", 8), pad(range(arbor.map(\.rps), "%.0f"), 16), pad(range(baseline.map(\.rps), "%.0f"), 16),
            pad(range(ratios, "%.2f"), 12), pad(range(arborCPU, "%.1f"), 14), pad(range(redisCPU, "%.1f"), 14),
            pad(range(arbor.map(\.p50), "%.3f"), 14), pad(range(baseline.map(\.p50), "%.3f"), 14),
            pad(range(arbor.map(\.p99), "%.3f"), 14), pad(range(baseline.map(\.p99), "%.3f"), 14),
            pad(range(arbor.map(\.p999), "%.3f"), 14), pad(range(baseline.map(\.p999), "%.3f"), 14),
            pad(range(floorRuns.map(\.rps), "%.0f"), 16), pad(range(floorRatios, "%.2f"), 12), pad(range(floorCPU, "%.1f"), 14))
        }
      }
      print("\n## Daemon: one change reaching \(watchers) watchers (time from sending the intent until the last watcher has the patch)\n")
      print("floor: the same load against `__line-echo`, which writes one fixed line to each watcher per change and does nothing else\n")
      print(
        pad("run", 6), pad("p50 ms", 10), pad("p99 ms", 10), pad("max ms", 10), pad("floor p50 ms", 14), pad("floor p99 ms", 14),
        pad("floor max ms", 14))
      for run in 1...runs {
        let fan = try await fanOut(socket: socket)
        let floorFan = try await fanOut(socket: floorSocket)
        print(
          pad("\(run)", 6), pad(String(format: "%.2f", fan.p50), 10), pad(String(format: "%.2f", fan.p99), 10), pad(String(format: "%.2f", fan.max), 10),
          pad(String(format: "%.2f", floorFan.p50), 14), pad(String(format: "%.2f", floorFan.p99), 14), pad(String(format: "%.2f", floorFan.max), 14))
      }
    } catch {
      print("the daemon benchmark failed: \(error)")
    }
    await countInstructions(in: directory)
  }

  /// Instructions per request under callgrind, the daemon (`--fsync off`, one row, one
  /// watcher of the root reading every notification) next to Redis's SET.
  private func countInstructions(in directory: String) async {
    print("\n## Daemon: instructions per request under callgrind (valgrind), one client, the same client for both\n")
    guard InstructionCounts.available else {
      print("valgrind is not installed (Debian's valgrind): no instruction counts")
      return
    }
    let counts = InstructionCounts(directory: directory, requests: quick ? 1_000 : 5_000)
    let socket = directory + "/counted.sock"
    let watcherStop = WatcherStop()
    var arbor: InstructionCounts.Figures?
    if let prepared = ValgrindForSwift.prepare(executable: Self.daemonBinary(), in: directory) {
      arbor = await counts.measure(
        "arbor", executable: prepared.executable,
        arguments: ["--socket", socket, "--state-dir", directory + "/counted-state", "--fsync", "off", "--log-level", "warning"],
        socket: socket, request: Self.incrementLine, preload: prepared.preload,
        prepare: { socket in
          _ = try LineLoad.roundTrips(socket: socket, clients: 1, requests: 1, request: Self.addRowLine)
          try watcherStop.watchRoot(socket)
        })
    }
    watcherStop.stop()
    var floor: InstructionCounts.Figures?
    if let prepared = ValgrindForSwift.prepare(executable: Self.ownBinary(), in: directory) {
      let floorSocket = directory + "/counted-floor.sock"
      floor = await counts.measure(
        "floor", executable: prepared.executable, arguments: ["__line-echo", floorSocket], socket: floorSocket, request: Self.incrementLine,
        preload: prepared.preload)
    }
    let redisSocket = directory + "/counted-redis.sock"
    let redis = await counts.measure(
      "redis", executable: "redis-server", arguments: ["--port", "0", "--unixsocket", redisSocket, "--save", "", "--appendonly", "no"],
      socket: redisSocket, request: Self.redisSet)
    print(pad("server", 10), pad("instructions/request", 22), pad("mallocs/request", 16), "callgrind dump (callgrind_annotate FILE)")
    for (name, figures) in [("arbor", arbor), ("floor", floor), ("redis", redis)] {
      guard let figures else {
        let executable = name == "arbor" ? Self.daemonBinary() : name == "floor" ? Self.ownBinary() : "redis-server"
        print(pad(name, 10), "not measured: valgrind could not run it (valgrind --tool=none \(executable) --version says why)")
        continue
      }
      print(pad(name, 10), pad(String(format: "%.0f", figures.instructions), 22), pad(String(format: "%.1f", figures.allocations), 16), figures.dump)
    }
    if let arbor, let redis {
      print(String(format: "arbor / redis: %.1fx the instructions per request (goal: at most 4x)", arbor.instructions / redis.instructions))
    }
    if let floor, let redis {
      print(
        String(
          format: "floor / redis: %.1fx (a SwiftNIO server answering each line with a fixed reply, nothing else: what any NIO-based daemon costs first)",
          floor.instructions / redis.instructions))
    }
  }

  /// The intent that adds the one row the counted load increments.
  static let addRowLine = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#.utf8) + [0x0A]

  typealias LoadResult = LineLoad.Result

  /// How the clients are driven.
  enum LoadShape: String, CaseIterable {
    /// One thread multiplexing every connection with epoll, as redis-benchmark does.
    case epoll
    /// A thread and a blocking connection per client, one request in flight each.
    case threads
  }

  /// Redis's SET in RESP; its reply, `+OK\r\n`, is one line.
  static let redisSet = Array("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n".utf8)

  /// A RESP error reply starts with `-`.
  static let isRedisError: @Sendable (ArraySlice<UInt8>) -> Bool = { $0.first == UInt8(ascii: "-") }

  private func load(_ shape: LoadShape, socket: String, clients: Int, request: [UInt8]) async throws -> LoadResult {
    let requests = self.requests
    return try await LineLoad.onThread {
      switch shape {
      case .epoll:
        return try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: request)
      case .threads:
        return try LineLoad.independentRoundTrips(socket: socket, clients: clients, requests: requests, request: request, isError: Self.isRedisErrorOrJSON)
      }
    }
  }

  /// A reply that stops a run: a RESP error, or a JSON-RPC one.
  static let isRedisErrorOrJSON: @Sendable (ArraySlice<UInt8>) -> Bool = { isRedisError($0) || LineLoad.isError($0) }

  /// The intent every round trip calls: one write to the tree, one reply.
  static let incrementLine = Array(#"{"jsonrpc":"2.0","id":1,"method":"intent.call","params":{"target":"/counters/0/counter","intent":"incrementTapped"}}"#.utf8) + [0x0A]

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

  /// This executable's absolute path (it serves the NIO floor, `__line-echo`).
  static func ownBinary() -> String {
    URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
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

/// A connection watching the daemon's root for the counted load, read on a thread of its
/// own until stopped: a watcher that reads every notification, as the goal's has.
final class WatcherStop: Sendable {
  private let descriptor = Mutex<Int32>(-1)

  /// Connects, sends `state.watch` of the root, and reads until ``stop()``.
  func watchRoot(_ path: String) throws {
    let socket = try RawSocket(connectingTo: path)
    descriptor.withLock { $0 = socket.fd }
    try socket.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"state.watch","params":{"path":""}}"#.utf8) + [0x0A])
    let thread = Thread {
      var reading = socket
      while (try? reading.readLine()) != nil {}
    }
    thread.start()
  }

  func stop() {
    let fd = descriptor.withLock { fd -> Int32 in
      defer { fd = -1 }
      return fd
    }
    if fd >= 0 {
      shutdown(fd, Int32(SHUT_RDWR))
      close(fd)
    }
  }
}

/// A process's CPU time so far, user and system, every thread: `/proc/PID/stat` fields 14
/// and 15, in clock ticks.
enum CPUTime {
  static func seconds(of pid: Int32) -> Double {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.lastIndex(of: ")")
    else { return .nan }
    // After the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let fields = text[text.index(after: close)...].split(separator: " ")
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
    return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
  }
}
