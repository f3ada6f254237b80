import ArborClient
import ArborJSON
import ArborLoad
import Foundation

#if canImport(Glibc)
  import Glibc
#endif

/// Durable intents with the journal in PostgreSQL, side by side in one run with the
/// SQLite store and with pgbench inserting rows of the journal's size on the same server,
/// and how far a standby lags behind its leader under load.
///
/// A PostgreSQL server of its own is started in a temporary directory
/// (`scripts/postgres-server.sh`, Debian's binaries); every daemon runs `--fsync always`.
struct PostgresBenchmarks {
  let requests: Int
  let runs: Int
  let samples: Int

  init(quick: Bool, runs: Int) {
    requests = quick ? 2_000 : 10_000
    self.runs = runs
    samples = quick ? 100 : 400
  }

  private func print(_ items: String...) {
    Swift.print(items.joined(separator: " "))
    fflush(nil)
  }

  func run() async {
    raiseFileLimit()
    let directory = NSTemporaryDirectory() + "arbor-pg-bench-\(getpid())"
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let server = directory + "/pg"
    let script = Self.script
    guard shell([script, "start", server, "5432"]) != nil, shell([script, "createdb", server, "arbor", "5432"]) != nil,
      shell([script, "createdb", server, "pgbench", "5432"]) != nil
    else {
      print("cannot start PostgreSQL: install Debian's postgresql (make prerequisites does)")
      return
    }
    defer {
      _ = shell([script, "stop", server])
      try? FileManager.default.removeItem(atPath: directory)
    }
    let store = "postgresql://postgres@/arbor?host=\(server)&port=5432"
    let daemons = DaemonBenchmarks(quick: true, runs: runs)
    let leaderSocket = directory + "/leader.sock"
    let standbySocket = directory + "/standby.sock"
    let sqliteSocket = directory + "/sqlite.sock"
    let common = ["--fsync", "always", "--max-connections", "4096", "--log-level", "warning"]
    guard let leader = daemons.start(DaemonBenchmarks.daemonBinary(), ["--socket", leaderSocket, "--state-dir", directory + "/leader", "--store", store] + common),
      await daemons.waitFor(leaderSocket),
      let standby = daemons.start(DaemonBenchmarks.daemonBinary(), ["--socket", standbySocket, "--state-dir", directory + "/standby", "--store", store] + common),
      let sqlite = daemons.start(DaemonBenchmarks.daemonBinary(), ["--socket", sqliteSocket, "--state-dir", directory + "/sqlite"] + common),
      await daemons.waitFor(standbySocket), await daemons.waitFor(sqliteSocket)
    else {
      print("cannot start counterfactd (\(DaemonBenchmarks.daemonBinary())); build it: swift build -c release --product counterfactd")
      return
    }
    defer {
      for process in [leader, standby, sqlite] {
        process.terminate()
        process.waitUntilExit()
      }
    }
    do {
      for socket in [leaderSocket, sqliteSocket] {
        let setup = try await ArborConnection.connect(to: socket)
        try await setup.call("intent.call", ["intent": "addButtonTapped"])
        setup.close()
      }
      let pgbenchScript = directory + "/insert.sql"
      try Self.pgbenchInsert.write(toFile: pgbenchScript, atomically: true, encoding: .utf8)
      guard shell(["/usr/bin/psql", "postgresql://postgres@/pgbench?host=\(server)&port=5432", "-c", Self.pgbenchTable]) != nil else {
        print("cannot create pgbench's table")
        return
      }
      print("\n## Durable intents: the journal in PostgreSQL vs the SQLite store vs pgbench inserts, \(runs) runs each, ranges min–max")
      print("every daemon --fsync always (a reply waits for the commit); PostgreSQL 15 on this machine's 2 cores with the clients, over its Unix socket")
      print("pgbench: one INSERT of a journal row's size (the patch of incrementTapped) per transaction, synchronous_commit on\n")
      print(pad("clients", 8), pad("postgres rps", 16), pad("sqlite rps", 16), pad("pgbench tps", 16), pad("pg/pgbench", 12), pad("pg p50 ms", 12), pad("pg p99 ms", 12))
      for clients in [1, 50] {
        var postgres: [LineLoad.Result] = []
        var sqliteResults: [LineLoad.Result] = []
        var pgbench: [Double] = []
        for _ in 0..<runs {
          postgres.append(try await load(socket: leaderSocket, clients: clients))
          sqliteResults.append(try await load(socket: sqliteSocket, clients: clients))
          pgbench.append(pgbenchTPS(server: server, script: pgbenchScript, clients: clients) ?? 0)
        }
        let ratios = zip(postgres, pgbench).map { $1 > 0 ? $0.rps / $1 : 0 }
        print(
          pad("\(clients)", 8), pad(range(postgres.map(\.rps), "%.0f"), 16), pad(range(sqliteResults.map(\.rps), "%.0f"), 16),
          pad(range(pgbench, "%.0f"), 16), pad(range(ratios, "%.2f"), 12), pad(range(postgres.map(\.p50), "%.2f"), 12),
          pad(range(postgres.map(\.p99), "%.2f"), 12))
      }
      print("\n## Replica lag under load: a reply from the leader to the standby's watcher having that revision")
      print("50 clients call intents on the leader meanwhile; \(samples) samples per run\n")
      print(pad("run", 6), pad("p50 ms", 10), pad("p99 ms", 10), pad("max ms", 10))
      for run in 1...runs {
        let lags = try await replicaLag(leader: leaderSocket, standby: standbySocket)
        let sorted = lags.sorted()
        func at(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        print(pad("\(run)", 6), pad(String(format: "%.2f", at(0.5)), 10), pad(String(format: "%.2f", at(0.99)), 10), pad(String(format: "%.2f", sorted.last ?? 0), 10))
      }
    } catch {
      print("the PostgreSQL benchmark failed: \(error)")
    }
  }

  private func load(socket: String, clients: Int) async throws -> LineLoad.Result {
    // One client waits for each commit: a tenth of the requests is enough for its figure.
    let requests = clients == 1 ? self.requests / 10 : self.requests
    return try await LineLoad.onThread {
      try LineLoad.roundTrips(socket: socket, clients: clients, requests: requests, request: DaemonBenchmarks.incrementLine)
    }
  }

  /// Milliseconds from each sampled intent's reply (on the leader) to the standby's watch
  /// notification of its revision, with 50 clients loading the leader meanwhile.
  private func replicaLag(leader: String, standby: String) async throws -> [Double] {
    // The load on a thread of its own (the generator blocks in epoll_wait).
    let background = Task { [requests] in
      try? await LineLoad.onThread {
        try LineLoad.roundTrips(socket: leader, clients: 50, requests: requests * 2, request: DaemonBenchmarks.incrementLine)
      }
    }
    let watcher = try await ArborConnection.connect(to: standby)
    defer { watcher.close() }
    let seen = SeenRevisions()
    let reading = Task {
      for await notification in watcher.notifications {
        if let revision = notification.params?["revision"]?.intValue { seen.saw(UInt64(revision)) }
      }
    }
    defer { reading.cancel() }
    _ = try await watcher.call("state.watch", ["path": "/counters/0/counter/count"])
    let caller = try await ArborConnection.connect(to: leader)
    defer { caller.close() }
    var lags: [Double] = []
    for _ in 0..<samples {
      let reply = try await caller.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      let replied = ContinuousClock.now
      guard let revision = reply["revision"]?.intValue else { continue }
      let arrived = await seen.wait(for: UInt64(revision))
      lags.append(Double((arrived - replied).components.attoseconds) / 1e15 + Double((arrived - replied).components.seconds) * 1000)
    }
    _ = await background.value
    return lags
  }

  private func pgbenchTPS(server: String, script: String, clients: Int) -> Double? {
    let transactions = max(1, (clients == 1 ? requests / 10 : requests) / clients)
    guard
      let output = shell([
        "/usr/bin/pgbench", "-n", "-h", server, "-p", "5432", "-U", "postgres", "-f", script, "-c", String(clients), "-j", String(min(clients, 2)),
        "-t", String(transactions), "pgbench",
      ]),
      let line = output.split(separator: "\n").first(where: { $0.hasPrefix("tps = ") }),
      let number = line.dropFirst(6).split(separator: " ").first
    else { return nil }
    return Double(number)
  }

  /// pgbench's table: the journal's columns.
  static let pgbenchTable =
    "CREATE TABLE IF NOT EXISTS journal (revision bigserial PRIMARY KEY, term bigint NOT NULL, time double precision NOT NULL, intent text, target text, patch text NOT NULL, checksum bigint NOT NULL)"

  /// One journal row of incrementTapped's size per transaction.
  static let pgbenchInsert =
    #"INSERT INTO journal (term, time, intent, target, patch, checksum) VALUES (1, extract(epoch from now()), 'incrementTapped', '/counters/0/counter', '[{"op":"replace","path":"/counters/0/counter/count","value":12345}]', 4242424242);"#
    + "\n"

  /// The repository's `scripts/postgres-server.sh`.
  static var script: String {
    if let configured = ProcessInfo.processInfo.environment["ARBOR_POSTGRES_SCRIPT"] { return configured }
    return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("scripts/postgres-server.sh").path
  }

  /// Runs a program to its end; its standard output, or nil when it failed. Spawned and
  /// waited for directly (posix_spawn, waitpid), its output through a file.
  private func shell(_ arguments: [String]) -> String? {
    let command = arguments[0].hasSuffix(".sh") ? ["/bin/bash"] + arguments : arguments
    let output = NSTemporaryDirectory() + "arbor-bench-output-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    defer { unlink(output) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = command.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var child: pid_t = 0
    guard posix_spawn(&child, command[0], &actions, nil, argv, environ) == 0 else { return nil }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    guard status == 0 else { return nil }
    return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
  }
}

/// The revisions a watcher has seen, and waits for one.
final class SeenRevisions: @unchecked Sendable {
  // `lock` guards `newest` and `waiters`.
  private let lock = NSLock()
  private var newest: UInt64 = 0
  private var waiters: [(UInt64, CheckedContinuation<ContinuousClock.Instant, Never>)] = []

  func saw(_ revision: UInt64) {
    let now = ContinuousClock.now
    let ready = lock.withLock { () -> [CheckedContinuation<ContinuousClock.Instant, Never>] in
      newest = max(newest, revision)
      let ready = waiters.filter { $0.0 <= newest }.map(\.1)
      waiters.removeAll { $0.0 <= newest }
      return ready
    }
    for continuation in ready { continuation.resume(returning: now) }
  }

  func wait(for revision: UInt64) async -> ContinuousClock.Instant {
    await withCheckedContinuation { continuation in
      let now = lock.withLock { () -> Bool in
        if newest >= revision { return true }
        waiters.append((revision, continuation))
        return false
      }
      if now { continuation.resume(returning: .now) }
    }
  }
}
