import Foundation
import PostgresTestServer
import Subprocess
import Synchronization
import SystemPackage

#if canImport(Glibc)
  import Glibc
#endif

/// Network namespaces on this machine (`scripts/network-lab.sh`): PostgreSQL in one, each
/// daemon in one of its own, a veth pair from each daemon to the server, so that a daemon's
/// link can be cut the way its machine's network is cut. Daemons reach the server over
/// TCP; the tests reach the daemons' Unix sockets (files) from where they are.
///
/// ```swift
/// try await NetworkLab.with(daemons: 2) { lab in
///   let database = try await lab.newDatabase()
///   let daemon = try SpawnedDaemon(store: lab.address(of: database, from: 1), launcher: lab.launcher(1))
///   try await lab.cut(1)
/// }
/// ```
final class NetworkLab: Sendable {
  let name: String
  let directory: String
  let port = 5432

  /// Namespaces of labs not yet stopped, deleted at exit whatever happened.
  private static let open = Mutex<[(name: String, directory: String)]>([])

  /// Whether this machine can make network namespaces (root, iproute2).
  static var isAvailable: Bool {
    geteuid() == 0 && FileManager.default.isExecutableFile(atPath: ip)
  }

  static var ip: String {
    ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"
  }

  static var script: String {
    URL(fileURLWithPath: PostgresTestServer.script).deletingLastPathComponent().appendingPathComponent("network-lab.sh").path
  }

  private init(name: String, directory: String) {
    self.name = name
    self.directory = directory
  }

  /// Makes the namespaces for `daemons` daemons and starts PostgreSQL in its own.
  static func start(daemons: Int) async throws -> NetworkLab {
    let name = "ar" + String(UInt32.random(in: 0...0xFFFFFF), radix: 16)
    let lab = NetworkLab(name: name, directory: try DaemonHarness.temporaryDirectory() + "/pg")
    let first = open.withLock { labs in
      labs.append((name, lab.directory))
      return labs.count == 1
    }
    if first {
      atexit {
        for lab in NetworkLab.open.withLock({ $0 }) {
          _ = system("/bin/bash '\(NetworkLab.script)' down '\(lab.name)' '\(lab.directory)' >/dev/null 2>&1")
        }
      }
    }
    do {
      try await lab.run(["up", name, String(daemons)])
      try await lab.run(["postgres", name, lab.directory, String(lab.port)])
    } catch {
      await lab.stop()
      throw error
    }
    return lab
  }

  /// A new, empty database: its name.
  func newDatabase() async throws -> String {
    let database = "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
    try await run(["createdb", directory, database, String(port)], script: PostgresTestServer.script)
    return database
  }

  /// `database`'s address from daemon `index`'s namespace.
  func address(of database: String, from index: Int) -> String {
    "postgres://postgres@10.231.\(index).1:\(port)/\(database)"
  }

  /// The backend pid of the session that holds the leader's advisory lock on `database`
  /// (key 0x4172626f72), asked over the server's Unix socket; nil when none holds it.
  func leaderLockHolder(_ database: String) async throws -> Int? {
    let address = PostgresTestServer.address(directory: directory, port: port, database: database)
    let holder = try await PostgresTestServer.sql(
      "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND classid = 65 AND objid = 1919053682 AND granted", on: address)
    return Int(holder)
  }

  /// What starts a program in daemon `index`'s namespace (the program's pid is the
  /// launcher's: `ip netns exec` runs it in place).
  func launcher(_ index: Int) -> [String] {
    [Self.ip, "netns", "exec", "\(name)d\(index)"]
  }

  /// Restarts the server (`pg_ctl restart -m fast`): every session ends, every advisory
  /// lock is released.
  func restartServer() async throws { try await run(["restart", name, directory]) }

  /// Cuts daemon `index`'s link: packets stop both ways, the server is not told.
  func cut(_ index: Int) async throws { try await run(["cut", name, String(index)]) }

  /// Brings daemon `index`'s link back.
  func mend(_ index: Int) async throws { try await run(["mend", name, String(index)]) }

  /// Starts a lab, runs `body` with it, and stops it however `body` ended.
  static func with<T>(daemons: Int, _ body: (NetworkLab) async throws -> T) async throws -> T {
    let lab = try await start(daemons: daemons)
    do {
      let result = try await body(lab)
      await lab.stop()
      return result
    } catch {
      await lab.stop()
      throw error
    }
  }

  /// Stops the server and every process left in the namespaces, and deletes them (a
  /// child process awaited, never a thread of the cooperative pool held).
  func stop() async {
    try? await run(["down", name, directory])
    Self.open.withLock { labs in labs.removeAll { $0.name == name } }
  }

  private func run(_ arguments: [String], script: String = NetworkLab.script) async throws {
    let result = try await Subprocess.run(
      .path(FilePath("/bin/bash")), arguments: Arguments([script] + arguments), output: .string(limit: 1 << 20),
      error: .string(limit: 1 << 20))
    guard result.terminationStatus.isSuccess else {
      throw HarnessError("\(script) \(arguments.joined(separator: " ")) ended with \(result.terminationStatus): \(result.standardError)")
    }
  }
}
