import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The opt-in HTTP listener (`--http`) of a real `counterfactd`: health, readiness,
/// `/metrics`, and what it answers to requests it must refuse.
@Suite(.startsProcesses) struct HTTPListenerTests {
  @Test func healthAndReadinessAnswerAndStatusNamesTheAddress() async throws {
    try await withHTTPDaemon { daemon, port in
      let health = try await HTTPTestClient.get(port: port, "/healthz")
      #expect(health.status == 200)
      #expect(health.body == "ok\n")
      let ready = try await HTTPTestClient.get(port: port, "/readyz")
      #expect(ready.status == 200)
      #expect(ready.body == "ready\n")
      let status = try await daemon.connect().call("daemon.status")
      #expect(status["http"] == .string("http://127.0.0.1:\(port)/"))
    }
  }

  @Test func metricsMoveWithKnownRequestsAndPassPromtool() async throws {
    try await withHTTPDaemon { daemon, port in
      let client = try await daemon.connect()
      let before = try await Self.metrics(port: port)
      for _ in 0..<3 { try await client.call("state.get", ["path": "/counters"]) }
      _ = try? await client.call("state.get", ["path": "/nothing/here"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      let after = try await Self.metrics(port: port)
      let gets = #"arbor_requests_total{method="state.get",outcome="ok"}"#
      let failedGets = #"arbor_requests_total{method="state.get",outcome="error"}"#
      #expect(after.value(gets) - before.value(gets) == 3)
      #expect(after.value(failedGets) - before.value(failedGets) == 1)
      #expect(after.value("arbor_intents_total") - before.value("arbor_intents_total") == 2)
      #expect(after.value("arbor_revision") == 2)
      #expect(after.value("arbor_connections") >= 1)
      #expect(after.value(#"arbor_request_duration_seconds_count{method="intent.call"}"#) >= 2)
      #expect(after.value("arbor_writes_refused") == 0)
      // Written within the fsync window: the journal's figures follow.
      try await eventually("the journal to write revision 2") {
        try await Self.metrics(port: port).value("arbor_journal_written_revision") == 2
      }
      #expect(try await Self.metrics(port: port).value("arbor_journal_transaction_duration_seconds_count") >= 1)
      // A state watch is counted while it is open.
      try await client.call("state.watch", ["path": ""])
      #expect(try await Self.metrics(port: port).value("arbor_watches") == 1)
      try await Self.promtoolAccepts(after.text)
    }
  }

  @Test func aResyncOfASlowWatcherIsCounted() async throws {
    try await withHTTPDaemon(arguments: ["--watch-queue", "8"]) { daemon, port in
      let driver = try await daemon.connect()
      try await driver.call("intent.call", ["intent": "addButtonTapped"])
      let slow = try RawSocket(path: daemon.socket, receiveBuffer: 4_096)
      slow.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch"}"# + "\n")
      try await eventually("the slow watch to be open") { try await Self.metrics(port: port).value("arbor_watches") == 1 }
      #expect(try await Self.metrics(port: port).value("arbor_watch_resyncs_total") == 0)
      // Far more notifications than the socket's buffers and --watch-queue hold: the watch is
      // coalesced, and its resync is sent once it reads again.
      for _ in 0..<3_000 {
        try await driver.call("intent.call", ["target": "/counters/0/counter", "intent": "incrementTapped"])
      }
      try await eventually("a resync to be counted as the slow watcher reads", seconds: 60) {
        _ = slow.readAvailable()
        return try await Self.metrics(port: port).value("arbor_watch_resyncs_total") >= 1
      }
    }
  }

  @Test func unknownPathsAndAPlainGetOfTheWebSocketSayWhatIsWrong() async throws {
    try await withHTTPDaemon { _, port in
      #expect(try await HTTPTestClient.get(port: port, "/nothing").status == 404)
      let plain = try await HTTPTestClient.get(port: port, "/rpc")
      #expect(plain.status == 426)
      #expect(plain.body.contains("WebSocket"))
      let page = try await HTTPTestClient.get(port: port, "/")
      #expect(page.status == 200)
      #expect(page.headers["content-type"] == "text/html; charset=utf-8")
      let policy = page.headers["content-security-policy"] ?? ""
      #expect(policy.contains("frame-ancestors 'none'"))
      // Only the page's own script runs: by its hash, not 'unsafe-inline'.
      #expect(policy.contains("script-src 'sha256-") && !policy.contains("script-src 'unsafe-inline'"), "\(policy)")
      #expect(page.body.contains("<html") || page.body.contains("<!doctype html>"))
    }
  }

  @Test func oversizedHeadersAreRefusedAndNothingElseIsDisturbed() async throws {
    try await withHTTPDaemon { daemon, port in
      let client = try await daemon.connect()
      let huge = String(repeating: "a", count: 100_000)
      let refused = try await HTTPTestClient.get(port: port, "/healthz", headers: [("X-Padding", huge)])
      #expect(refused.status == 431)
      #expect(refused.headers["connection"] == "close")
      // Over the limit in total, though each field is under it.
      let many = (0..<8).map { ("X-Padding-\($0)", String(repeating: "b", count: 10_000)) }
      #expect(try await HTTPTestClient.get(port: port, "/healthz", headers: many).status == 431)
      #expect(daemon.log.contains("refused an HTTP request"))
      #expect(try await HTTPTestClient.get(port: port, "/healthz").status == 200)
      #expect(try await client.call("state.get")["revision"] == 0)
    }
  }

  @Test func aForeignHostNameIsRefusedOnALoopbackListener() async throws {
    try await withHTTPDaemon { _, port in
      let rebound = try await HTTPTestClient.get(port: port, "/metrics", host: "attacker.example:\(port)")
      #expect(rebound.status == 421)
      #expect(rebound.body.contains("loopback names only"))
      #expect(try await HTTPTestClient.get(port: port, "/healthz", host: "localhost:\(port)").status == 200)
    }
  }

  @Test func aRemoteAddressWithoutAllowRemoteStopsTheStartWithAClearError() async throws {
    let (output, status) = try await runDaemonToExit(["--http", "0.0.0.0:0"])
    #expect(!status.isSuccess)
    #expect(output.contains("--http 0.0.0.0:0 is not a loopback address"))
    #expect(output.contains("--http-allow-remote"))
  }

  @Test func anUnusableTokenFileStopsTheStartWithAClearError() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let short = directory + "/short-token"
    try "abc\n".write(toFile: short, atomically: true, encoding: .utf8)
    let (output, status) = try await runDaemonToExit(["--http", "127.0.0.1:0", "--http-token-file", short])
    #expect(!status.isSuccess)
    #expect(output.contains("no token of at least 16 characters"))
    let (missing, missingStatus) = try await runDaemonToExit(["--http", "127.0.0.1:0", "--http-token-file", directory + "/none"])
    #expect(!missingStatus.isSuccess)
    #expect(missing.contains("cannot be read"))
    let (alone, aloneStatus) = try await runDaemonToExit(["--http-token-file", short])
    #expect(!aloneStatus.isSuccess)
    #expect(alone.contains("need --http"))
  }

  @Test func aPortInUseStopsTheStartWithAClearError() async throws {
    try await withHTTPDaemon { _, port in
      let (output, status) = try await runDaemonToExit(["--http", "127.0.0.1:\(port)"])
      #expect(!status.isSuccess)
      #expect(output.contains("--http 127.0.0.1:\(port) cannot be served"))
    }
  }

  @Test func aStopClosesTheInspectorsConnectionsAndTheDaemonExitsAtOnce() async throws {
    let (_, status) = try await withDaemon(arguments: ["--http", "127.0.0.1:0"]) { daemon, _ in
      let port = try await httpPort(of: daemon)
      // An idle keep-alive connection and an open WebSocket with a watch.
      let idle = try await HTTPTestClient.connect(port: port)
      let started = ContinuousClock.now
      try await WebSocketTestClient.with(port: port) { socket in
        try await socket.send(#"{"jsonrpc":"2.0","id":1,"method":"state.watch"}"#)
        _ = try await socket.reply(to: 1)
        kill(daemon.pid, SIGTERM)
        // The watch ends with the daemon's connection, and the WebSocket with it.
        while true {
          guard let frame = try? await socket.receive(seconds: 10, what: "the WebSocket's end") else { break }
          if frame.opcode == 8 { break }
        }
      }
      // Exited: gone, or a zombie until the harness reaps it.
      try await eventually("the daemon to exit after SIGTERM", seconds: 10) {
        let stat = (try? String(contentsOfFile: "/proc/\(daemon.pid)/stat", encoding: .utf8)) ?? ""
        return stat.isEmpty || stat.contains(") Z ")
      }
      #expect(ContinuousClock.now - started < .seconds(10))
      idle.channel.close(promise: nil)
    }
    #expect(status == .exited(0))
  }

  // MARK: - Helpers

  struct Metrics {
    var text: String
    /// The value of the sample written exactly as `series` (0 when absent).
    func value(_ series: String) -> Double {
      for line in text.split(separator: "\n") where line.hasPrefix(series + " ") {
        return Double(line.dropFirst(series.count + 1)) ?? .nan
      }
      return 0
    }
  }

  static func metrics(port: Int) async throws -> Metrics {
    let reply = try await HTTPTestClient.get(port: port, "/metrics")
    #expect(reply.status == 200)
    #expect(reply.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
    return Metrics(text: reply.body)
  }

  /// `promtool check metrics` (Debian's prometheus package) reads the text without a problem.
  static func promtoolAccepts(_ text: String) async throws {
    let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first { FileManager.default.isExecutableFile(atPath: $0) }
    guard let promtool else {
      Issue.record("promtool is not installed (Debian's prometheus package; `make prerequisites` installs it)")
      return
    }
    // swift-subprocess waits without holding a thread (a blocking read here held one of
    // the test process's two pool threads for as long as promtool took to start).
    let result = try await withDeadline("promtool check metrics") {
      try await run(
        .path(FilePath(promtool)), arguments: ["check", "metrics"], input: .string(text), output: .string(limit: 1 << 20),
        error: .string(limit: 1 << 20))
    }
    #expect(result.terminationStatus == .exited(0), "promtool check metrics: \(result.standardOutput)\(result.standardError)")
  }
}

/// Starts `counterfactd` with `--http 127.0.0.1:0` (and `arguments`), reads the port it got
/// from `daemon.status`, and runs `body`.
func withHTTPDaemon(
  arguments: [String] = [], _ body: @escaping (DaemonUnderTest, Int) async throws -> Void
) async throws {
  try await withDaemon(arguments: ["--http", "127.0.0.1:0"] + arguments) { daemon, _ in
    try await body(daemon, try await httpPort(of: daemon))
  }
}

/// The port of the daemon's HTTP listener, as `daemon.status` names it once it listens.
func httpPort(of daemon: DaemonUnderTest) async throws -> Int {
  try await httpPort(socket: daemon.socket)
}

/// The port of the HTTP listener of the daemon on `socket`, as `daemon.status` names it.
func httpPort(socket: String) async throws -> Int {
  let client = try await withDeadline("a connection to \(socket)") { try await ArborConnection.connect(to: socket) }
  defer { client.close() }
  let url: String = try await withDeadline("daemon.status to name the HTTP listener's address", seconds: 20) {
    while true {
      if case .string(let url)? = try await client.call("daemon.status")["http"] { return url }
      try await Task.sleep(for: .milliseconds(20))
    }
  }
  guard let port = Int(url.split(separator: ":").last?.trimmingCharacters(in: CharacterSet(charactersIn: "/")) ?? "") else {
    throw HarnessError("no port in \(url)")
  }
  return port
}

/// Runs `counterfactd` with `arguments` until it exits (it is expected to refuse to start),
/// and returns what it wrote to standard error with its exit status.
func runDaemonToExit(_ arguments: [String]) async throws -> (String, ExitOutcome) {
  let directory = try DaemonHarness.temporaryDirectory()
  let process = Process()
  process.executableURL = URL(fileURLWithPath: DaemonHarness.binary())
  process.arguments = ["--socket", directory + "/d.sock", "--state-dir", directory + "/state"] + arguments
  let errors = Pipe()
  process.standardError = errors
  process.standardOutput = FileHandle.nullDevice
  try process.run()
  let deadline = Date().addingTimeInterval(30)
  while process.isRunning && Date() < deadline { try await Task.sleep(for: .milliseconds(20)) }
  if process.isRunning {
    kill(process.processIdentifier, SIGKILL)
    throw HarnessError("counterfactd \(arguments.joined(separator: " ")) did not exit within 30 s")
  }
  let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
  return (said, ExitOutcome(code: process.terminationStatus))
}

struct ExitOutcome {
  var code: Int32
  var isSuccess: Bool { code == 0 }
}
