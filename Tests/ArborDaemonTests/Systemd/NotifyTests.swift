import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon as a `Type=notify` service, with a datagram socket of the test's own as
/// `$NOTIFY_SOCKET`: `READY=1` once it listens, a status line, `STOPPING=1` on SIGTERM,
/// watchdog pings at half of `$WATCHDOG_USEC`.
@Suite(.startsProcesses) struct NotifyTests {
  @Test func readyOnceListeningThenStatusThenStoppingOnSigterm() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    let (_, status) = try await withDaemon(directory: directory, environment: ["NOTIFY_SOCKET": listener.path]) { daemon, execution in
      try await eventually("READY=1") { listener.has("READY=1") }
      let ready = try #require(listener.messages.first { $0.contains("READY=1") })
      #expect(ready.contains("MAINPID=\(daemon.pid)"), "\(ready)")
      #expect(ready.contains("STATUS=revision 0, "), "\(ready)")
      // Ready means listening: the socket answers.
      let client = try await daemon.connect()
      #expect(try await client.call("daemon.status")["name"] == "counterfactd")
      try execution.send(signal: .terminate)
      try await eventually("STOPPING=1") { listener.has("STOPPING=1") }
    }
    #expect(status == .exited(0))
    #expect(listener.messages.firstIndex { $0.contains("READY=1") }! < listener.messages.firstIndex { $0.contains("STOPPING=1") }!)
  }

  /// The whole life of a service in one run, in order: READY (with its status), a
  /// refreshed STATUS, RELOADING with MONOTONIC_USEC on SIGHUP and READY after it,
  /// STOPPING on SIGTERM.
  @Test func theNotificationsOfAWholeRunComeInOrder() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    let (_, status) = try await withDaemon(
      arguments: ["--status-interval", "0.2"], directory: directory, environment: ["NOTIFY_SOCKET": listener.path]
    ) { daemon, execution in
      try await eventually("READY=1") { listener.has("READY=1") }
      let client = try await daemon.connect()
      try await client.call("intent.call", ["intent": "addButtonTapped"])
      try await eventually("a status line with revision 1") { listener.messages.contains { $0.hasPrefix("STATUS=revision 1,") } }
      kill(daemon.pid, SIGHUP)
      try await eventually("READY=1 after the reload") { listener.count(of: "READY=1") >= 2 }
      try execution.send(signal: .terminate)
      try await eventually("STOPPING=1") { listener.has("STOPPING=1") }
    }
    #expect(status == .exited(0))
    let messages = listener.messages
    func first(_ predicate: (String) -> Bool, after start: Int = -1) -> Int? {
      messages.indices.first { $0 > start && predicate(messages[$0]) }
    }
    let ready = try #require(first { $0.contains("READY=1") })
    let refreshed = try #require(first({ $0.hasPrefix("STATUS=revision 1,") }, after: ready), "\(messages)")
    let reloading = try #require(first({ $0.contains("RELOADING=1") }, after: refreshed), "\(messages)")
    #expect(messages[reloading].contains("MONOTONIC_USEC="))
    let readyAgain = try #require(first({ $0.contains("READY=1") }, after: reloading), "\(messages)")
    let stopping = try #require(first({ $0.contains("STOPPING=1") }, after: readyAgain), "\(messages)")
    #expect(!messages[(stopping + 1)...].contains { $0.contains("READY=1") }, "nothing is ready after stopping")
  }

  @Test func watchdogPingsAtHalfTheInterval() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    try await withDaemon(directory: directory, environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"]) { _, _ in
      try await eventually("five watchdog pings") { listener.count(of: "WATCHDOG=1") >= 5 }
      let pings = listener.timedMessages.filter { $0.0 == "WATCHDOG=1" }.map(\.1)
      let gaps = zip(pings.dropFirst(), pings).map { $0 - $1 }.sorted()
      // Half of 200 ms. The times are when the test's listener read them, so one late read
      // shows as a long gap and a short one: the median is the pace.
      let median = gaps[gaps.count / 2]
      #expect(median > .milliseconds(70) && median < .milliseconds(150), "median \(median) of \(gaps)")
    }
  }

  @Test func aWedgedTreeStopsThePingsUntilItLetsGo() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    try await withDaemon(
      binary: DaemonHarness.fixtureBinary(), directory: directory,
      environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000"]
    ) { daemon, _ in
      try await eventually("the first watchdog pings") { listener.count(of: "WATCHDOG=1") >= 3 }
      let client = try await daemon.connect()
      let began = ContinuousClock.now
      // The intent holds the tree's lock for 1.5 s; its reply comes when it lets go.
      let reply = try await withDeadline("the wedging intent to return", seconds: 30) {
        try await client.call("intent.call", ["intent": "hold", "params": ["milliseconds": 1500]])
      }
      let ended = ContinuousClock.now
      #expect(reply["revision"] != nil)
      try await eventually("pings again once the tree is free") {
        listener.timedMessages.contains { $0.0 == "WATCHDOG=1" && $0.1 > ended }
      }
      // Pings come every 100 ms; while the tree is held, none: one gap of about the hold,
      // inside the call. (The hold may start a little after the request was sent.)
      let pings = listener.timedMessages.filter { $0.0 == "WATCHDOG=1" }.map(\.1)
      let gaps = zip(pings, pings.dropFirst()).map { (from: $0, length: $1 - $0) }
      let longest = try #require(gaps.max { $0.length < $1.length })
      #expect(longest.length >= .milliseconds(1300), "the longest silence was \(longest.length)")
      #expect(longest.from >= began - .milliseconds(150) && longest.from + longest.length <= ended + .milliseconds(300), "the silence was while the intent held the tree")
      #expect(ended - began >= .milliseconds(1400))
    }
  }

  @Test func noWatchdogWithoutItsVariablesAndNothingWithoutANotifySocket() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    try await withDaemon(directory: directory, environment: ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "1"]) { _, _ in
      try await eventually("READY=1") { listener.has("READY=1") }
      try await Task.sleep(for: .milliseconds(400))
      #expect(listener.count(of: "WATCHDOG=1") == 0, "WATCHDOG_PID names another process")
    }
  }
}
