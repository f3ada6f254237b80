import ArborClient
import ArborJSON
import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// SIGHUP re-reads `--config`: `RELOADING=1` with `MONOTONIC_USEC`, the new settings for
/// the connections that come after, then `READY=1`; a file with a mistake is reported
/// with its line and the settings in force stay.
@Suite(.startsProcesses) struct ReloadTests {
  /// Opens connections until one is refused (the daemon's error line, then the close);
  /// returns how many were served. Closes them all.
  static func servedConnections(_ daemon: DaemonUnderTest, trying: Int) async throws -> Int {
    // Connections of an earlier count are closed, but a loaded daemon may count them a
    // while longer: the first connection asks how many the daemon counts now (itself
    // included), and the count is that plus the connections served after it.
    let first = try await daemon.connect()
    var open: [ArborConnection] = [first]
    defer { for connection in open { connection.close() } }
    guard let status = try? await withDeadline("daemon.status", { try await first.call("daemon.status") }),
      let counted = status["clients"]?.intValue
    else { return 0 }
    for _ in 1..<trying {
      let connection = try await daemon.connect()
      // A refused connection gets an error line with a null id, then is closed: the
      // request fails.
      guard let reply = try? await withDeadline("daemon.status on a new connection", { try await connection.request("daemon.status") }),
        reply.error == nil
      else {
        connection.close()
        return Int(counted) + open.count - 1
      }
      open.append(connection)
    }
    return Int(counted) + open.count - 1
  }

  @Test func sighupAppliesTheSettingsFileAndKeepsThemWhenTheFileIsWrong() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let config = directory + "/counterfactd.conf"
    try "# two at once\nmax-connections = 2\n".write(toFile: config, atomically: true, encoding: .utf8)
    let listener = try NotifyListener(path: directory + "/notify.sock")
    defer { listener.close() }
    try await withDaemon(arguments: ["--config", config], directory: directory, environment: ["NOTIFY_SOCKET": listener.path]) { daemon, _ in
      try await eventually("READY=1") { listener.has("READY=1") }
      // The harness's own probe has come and gone; eventually the count settles at 2.
      try await eventually("two connections served, the third refused", seconds: 60) { try await Self.servedConnections(daemon, trying: 3) == 2 }

      try "max-connections = 4\nlog-level = debug\n".write(toFile: config, atomically: true, encoding: .utf8)
      let readyBefore = listener.count(of: "READY=1")
      kill(daemon.pid, SIGHUP)
      try await eventually("READY=1 after the reload") { listener.count(of: "READY=1") > readyBefore }
      let reloading = try #require(listener.messages.last { $0.contains("RELOADING=1") })
      #expect(reloading.contains("MONOTONIC_USEC="), "\(reloading)")
      // The connections of the count above are closed, but the daemon may not have seen
      // them go yet (later on a loaded machine): until it has, they count against the
      // limit. So the count is taken until it settles, as above.
      try await eventually("four connections served, the fifth refused", seconds: 60) { try await Self.servedConnections(daemon, trying: 5) == 4 }
      #expect(daemon.log.contains("reloaded \(config): "), "\(daemon.log)")
      #expect(daemon.log.contains("log-level debug"))

      try "max-connections = lots\n".write(toFile: config, atomically: true, encoding: .utf8)
      let readyBeforeBad = listener.count(of: "READY=1")
      kill(daemon.pid, SIGHUP)
      try await eventually("READY=1 after the failed reload") { listener.count(of: "READY=1") > readyBeforeBad }
      #expect(daemon.log.contains("the settings were not reloaded, the ones in force stay: \(config):1: max-connections must be a positive integer, not 'lots'"), "\(daemon.log)")
      let seen = LockedBox<[Int]>([])
      do {
        try await eventually("the previous limit to stay: four connections served, the fifth refused", seconds: 60) {
          let served = try await Self.servedConnections(daemon, trying: 5)
          seen.update { $0.append(served) }
          return served == 4
        }
      } catch {
        throw HarnessError("\(error); counts seen: \(seen.value.suffix(20)); the daemon's log ends: \(daemon.log.suffix(3000))")
      }
    }
  }

  @Test func aWrongSettingsFileStopsTheStartWithItsLine() async throws {
    let directory = try DaemonHarness.temporaryDirectory()
    let config = directory + "/bad.conf"
    try "max-connections = 8\nwatchers = 3\n".write(toFile: config, atomically: true, encoding: .utf8)
    let result = try await withDeadline("the daemon to refuse its settings") {
      try await run(
        .path(.init(DaemonHarness.binary())),
        arguments: ["--socket", directory + "/d.sock", "--state-dir", directory + "/state", "--config", config],
        output: .discarded, error: .string(limit: 1 << 16))
    }
    #expect(result.terminationStatus != .exited(0))
    #expect(result.standardError.contains("\(config):2: unknown setting 'watchers' (known: readers, operators, admins,"), "\(result.standardError)")
  }
}
