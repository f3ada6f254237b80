import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Synchronization
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// An upgrade without a service manager: `SIGUSR2` makes the daemon start its binary again
/// and hand that process its socket and every connection with its watches, over a socket
/// pair. A binary that does not start leaves the old process serving, with the reason in
/// its log.
@Suite(.startsProcesses, .serialized) struct DaemonUpgradeTests {
  static let addButton = #"{"jsonrpc":"2.0","id":2,"method":"intent.call","params":{"intent":"addButtonTapped"}}"#

  @Test func sigusr2HandsTheConnectionsAndWatchesToTheBinaryStartedAgain() async throws {
    let daemon = try SpawnedDaemon()
    defer { daemon.kill() }
    try await daemon.start()
    let (watcher, subscription, caller) = try await ConnectionHandOverTests.watcherAndCaller(on: daemon.socket)

    // Half a request before the upgrade; the rest once the old process is gone.
    caller.sendPart(#"{"jsonrpc":"2.0","id":3,"method":"intent.call","par"#)
    try await Task.sleep(for: .milliseconds(100))
    let old = daemon.processID
    kill(old, SIGUSR2)
    try await eventually("the old process to hand over and exit\n\(daemon.log)", seconds: 60) { kill(old, 0) != 0 }
    caller.send(#"ams":{"intent":"addButtonTapped"}}"#)
    let reply = try await caller.message("the new process's reply to the request sent across the upgrade")
    #expect(reply["id"] == 3 && reply["result"]?["revision"] == 2, "\(reply)\n\(daemon.log)")
    let second = try await watcher.message("the change the new process made")
    #expect(second["params"]?["subscription"]?.intValue == subscription, "the same subscription goes on: \(second)")
    #expect(second["params"]?["revision"] == 2 && second["params"]?["resync"] == nil, "the next revision, as a patch: \(second)")

    caller.send(#"{"jsonrpc":"2.0","id":4,"method":"daemon.status"}"#)
    let status = try await caller.message("daemon.status from the new process")
    let next = try #require(status["result"]?["pid"]?.intValue.map { pid_t($0) }, "\(status)")
    defer { kill(next, SIGKILL) }
    #expect(next != old)
    #expect(status["result"]?["generation"] == 1, "\(status)")
    #expect(!watcher.ended && !caller.ended, "a client saw its connection end")
    // New clients find the same socket served.
    #expect(try await daemon.connect().call("state.get")["revision"] == 2)
    #expect(daemon.log.contains("handed over to pid \(next)"), "\(daemon.log)")
    #expect(daemon.log.contains("took over 2 connections at revision 1 (generation 1)"), "\(daemon.log)")
    // The new process opened the store once the old one let go of it, not at its exit.
    #expect(daemon.log.contains("from the daemon that started this one, which let go of the state directory"), "\(daemon.log)")

    // The new process stops as any daemon does, and removes its socket file then.
    kill(next, SIGTERM)
    try await eventually("the new process to exit after SIGTERM", seconds: 30) { kill(next, 0) != 0 }
    #expect(!FileManager.default.fileExists(atPath: daemon.socket), "the socket file was left behind")
  }

  /// Clients that connect while the daemon upgrades, one after another: each is answered,
  /// by the old process or the new one, and none sees its connection end. The listening
  /// socket takes some of them just as the old process stops; NIO closed such a
  /// connection when its listening channel closed before the connection was set up.
  @Test func clientsThatConnectThroughUpgradesAreAllAnswered() async throws {
    let daemon = try SpawnedDaemon()
    defer { daemon.kill() }
    try await daemon.start()
    let run = ClientsThroughUpgrades(first: daemon.processID)
    var pids: [pid_t] = []
    defer { for pid in pids { kill(pid, SIGKILL) } }
    try await withThrowingTaskGroup(of: Void.self) { group in
      for _ in 0..<4 {
        group.addTask {
          while !run.stop.load(ordering: .acquiring) {
            do {
              let connection = try await daemon.connect()
              defer { connection.close() }
              _ = try await connection.call("daemon.status")
              run.answered.add(1, ordering: .relaxed)
            } catch {
              run.failures.withLock { $0.append("\(error)") }
            }
          }
        }
      }
      for _ in 0..<6 {
        try await Task.sleep(for: .milliseconds(200))
        let old = run.current.load(ordering: .relaxed)
        kill(old, SIGUSR2)
        try await eventually("an upgrade from pid \(old)\n\(daemon.log)", seconds: 60) {
          let pid = pid_t(try await daemon.connect().call("daemon.status")["pid"]?.intValue ?? Int64(old))
          run.current.store(pid, ordering: .relaxed)
          return pid != old
        }
        pids.append(run.current.load(ordering: .relaxed))
      }
      run.stop.store(true, ordering: .releasing)
      try await group.waitForAll()
    }
    let failures = run.failures.withLock { $0 }
    #expect(failures.isEmpty, "\(failures.count) calls failed: \(failures.prefix(5))\n\(daemon.log)")
    #expect(run.answered.load(ordering: .relaxed) > 0)
  }

  /// What the clients of ``clientsThatConnectThroughUpgradesAreAllAnswered()`` share.
  final class ClientsThroughUpgrades: Sendable {
    let stop = Atomic<Bool>(false)
    let answered = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    /// The daemon's process now.
    let current: Atomic<Int32>
    init(first: pid_t) { current = Atomic(first) }
  }

  /// `arborctl upgrade`: `daemon.upgrade` over its connection, which goes over with the
  /// others; it waits until the new process answers on it and says which process that is.
  @Test func arborctlUpgradeWaitsForTheNewProcessAndSaysWhichItIs() async throws {
    let daemon = try SpawnedDaemon()
    defer { daemon.kill() }
    try await daemon.start()
    let (watcher, subscription, caller) = try await ConnectionHandOverTests.watcherAndCaller(on: daemon.socket)
    let old = daemon.processID

    let upgraded = try await ArborctlTests.arborctl(["upgrade", "--json"], socket: daemon.socket)
    #expect(upgraded.status == .exited(0), "\(upgraded.error)\n\(daemon.log)")
    let next = pid_t(upgraded.json?["pid"]?.intValue ?? 0)
    defer { if next > 0 { kill(next, SIGKILL) } }
    #expect(next > 0 && next != old, "\(upgraded.output)")
    #expect(upgraded.json?["generation"] == 1 && upgraded.json?["revision"] == 1, "\(upgraded.output)")
    try await eventually("the old process to exit", seconds: 30) { kill(old, 0) != 0 }
    caller.send(Self.addButton)
    #expect(try await caller.message("an intent after the upgrade")["result"]?["revision"] == 2)
    let change = try await watcher.message("the change after the upgrade")
    #expect(change["params"]?["subscription"]?.intValue == subscription && change["params"]?["revision"] == 2, "\(change)")

    // A binary that exits at once: the error says why, and the daemon serves on.
    let failed = try await ArborctlTests.arborctl(["upgrade", "--binary", "/bin/false"], socket: daemon.socket)
    #expect(failed.status == .exited(1), "\(failed.output)\(failed.error)")
    #expect(failed.error.contains("ended before it was ready (exit status 1)"), "\(failed.error)")
    let missing = try await ArborctlTests.arborctl(["upgrade", "--binary", "/nonexistent/counterfactd"], socket: daemon.socket)
    #expect(missing.status == .exited(1) && missing.error.contains("is not a file this daemon may run"), "\(missing.error)")
    caller.send(#"{"jsonrpc":"2.0","id":5,"method":"daemon.status"}"#)
    #expect(try await caller.message("daemon.status after the failed upgrades")["result"]?["pid"]?.intValue == Int64(next))

    kill(next, SIGTERM)
    try await eventually("the new process to exit after SIGTERM", seconds: 30) { kill(next, 0) != 0 }
  }

  /// A new binary whose model cannot restore the running state (here another root model
  /// altogether) says so while the old process still serves: the upgrade is refused with
  /// its reason, and no client notices.
  @Test func aBinaryThatCannotRestoreTheStateLeavesTheOldOneServing() async throws {
    let daemon = try SpawnedDaemon()
    defer { daemon.kill() }
    try await daemon.start()
    let (watcher, subscription, caller) = try await ConnectionHandOverTests.watcherAndCaller(on: daemon.socket)

    let refused = try await ArborctlTests.arborctl(["upgrade", "--binary", TodosCalls.todosd()], socket: daemon.socket)
    #expect(refused.status == .exited(1), "\(refused.output)\(refused.error)")
    #expect(refused.error.contains("cannot restore its state"), "\(refused.error)")
    #expect(refused.error.contains("not of TodoListModel"), "the reason the new process found: \(refused.error)")
    #expect(daemon.log.contains("the upgrade did not happen"), "\(daemon.log)")

    try await Self.expectServingOn(daemon, caller: caller)
    let change = try await watcher.message("the change after the refused upgrade")
    #expect(change["params"]?["subscription"]?.intValue == subscription && change["params"]?["revision"] == 2, "\(change)")
    #expect(!watcher.ended && !caller.ended, "a client saw its connection end")
  }

  @Test func aNewBinaryThatDoesNotStartLeavesTheOldOneServing() async throws {
    // The daemon runs from a path of its own, which the test then fills with a broken build.
    let binary = try DaemonHarness.temporaryDirectory() + "/counterfactd"
    if link(DaemonHarness.binary(), binary) != 0 { try FileManager.default.copyItem(atPath: DaemonHarness.binary(), toPath: binary) }
    let daemon = try SpawnedDaemon(binary: binary)
    defer { daemon.kill() }
    try await daemon.start()
    let caller = try LineSocket(path: daemon.socket)
    caller.send(Self.addButton)
    #expect(try await caller.message("the first intent's reply")["result"]?["revision"] == 1)

    try FileManager.default.removeItem(atPath: binary)
    try "#!/bin/sh\necho 'this build cannot start' >&2\nexit 3\n".write(toFile: binary, atomically: false, encoding: .utf8)
    chmod(binary, 0o755)
    kill(daemon.processID, SIGUSR2)
    try await eventually("the daemon to say the upgrade did not happen\n\(daemon.log)", seconds: 60) {
      daemon.log.contains("the upgrade did not happen")
    }
    #expect(daemon.log.contains("ended before it was ready (exit status 3)"), "\(daemon.log)")
    #expect(daemon.log.contains("this build cannot start"), "the new process's own words are in the same log")
    // The old process serves on, the same connection and new ones.
    try await Self.expectServingOn(daemon, caller: caller)
    #expect(try await daemon.connect().call("state.get")["revision"] == 2)
  }

  /// Under systemd (the test plays its notify socket): the upgrade happens, the old process
  /// names the new one the service's main process before it stops and says nothing of
  /// stopping itself (systemd would take the service for stopping, and end the new process
  /// with it), and the new one says it is ready as the main process.
  @Test func underSystemdTheNewProcessBecomesTheMainOne() async throws {
    let notify = try NotifyListener(path: try DaemonHarness.temporaryDirectory() + "/notify")
    defer { notify.close() }
    let daemon = try SpawnedDaemon(environment: ["NOTIFY_SOCKET": notify.path, "FDSTORE": "64", "WATCHDOG_PID": "1", "WATCHDOG_USEC": "2000000"])
    defer { daemon.kill() }
    try await daemon.start()
    let (watcher, subscription, caller) = try await ConnectionHandOverTests.watcherAndCaller(on: daemon.socket)
    let old = daemon.processID
    try await eventually("the old process to say it is ready") { notify.has("MAINPID=\(old)") }
    kill(old, SIGUSR2)
    try await eventually("the old process to hand over and exit\n\(daemon.log)", seconds: 60) { ConnectionHandOverTests.hasEnded(old) }
    caller.send(#"{"jsonrpc":"2.0","id":3,"method":"daemon.status"}"#)
    let status = try await caller.message("daemon.status from the new process")
    let next = try #require(status["result"]?["pid"]?.intValue.map { pid_t($0) }, "\(status)\n\(daemon.log)")
    defer { kill(next, SIGKILL) }
    #expect(next != old && status["result"]?["generation"] == 1, "\(status)")
    try await eventually("the new process to say it is ready as the main process") { notify.count(of: "MAINPID=\(next)") >= 2 }
    let lines = notify.messages.flatMap { $0.split(separator: "\n").map(String.init) }
    #expect(lines.contains("STATUS=upgrading: pid \(next) takes over"), "\(lines)")
    #expect(!lines.contains("STOPPING=1"), "the old process said it was stopping: \(lines)")
    #expect(lines.filter { $0 == "READY=1" }.count == 2, "\(lines)")
    // The old process stored nothing in systemd's store for the upgrade: its connections went
    // to the new process, which serves them.
    #expect(!notify.storedDescriptors.contains { $0.name.hasPrefix("connection-") }, "\(notify.storedDescriptors.map(\.name))")
    caller.send(Self.addButton)
    #expect(try await caller.message("an intent after the upgrade")["result"]?["revision"] == 2)
    let change = try await watcher.message("the change after the upgrade")
    #expect(change["params"]?["subscription"]?.intValue == subscription && change["params"]?["revision"] == 2, "\(change)")
    // WATCHDOG_PID named another process (here pid 1, so the old one never pinged): the new
    // one pings the watchdog itself.
    try await eventually("the new process to ping the watchdog", seconds: 20) { notify.has("WATCHDOG=1") }
  }

  /// The daemon whose upgrade did not happen is the same process, not handed over
  /// (generation 0), and answers `caller`'s next intent with revision 2.
  static func expectServingOn(_ daemon: SpawnedDaemon, caller: LineSocket) async throws {
    caller.send(#"{"jsonrpc":"2.0","id":4,"method":"daemon.status"}"#)
    let status = try await caller.message("daemon.status after the upgrade that did not happen")
    #expect(status["result"]?["pid"]?.intValue == Int64(daemon.processID) && status["result"]?["generation"] == 0, "\(status)")
    caller.send(addButton)
    #expect(try await caller.message("an intent after the upgrade that did not happen")["result"]?["revision"] == 2)
  }
}
