import ArborTesting
import Foundation
import ProcessSlots
import Subprocess
import SystemPackage
import Testing

#if canImport(Glibc)
  import Glibc
#endif

/// A throwaway OpenSSH server for a test: `/usr/sbin/sshd -D -e` on a free loopback port,
/// in a temporary directory with a host key and a user key of its own (ssh-keygen), the
/// user key authorized for every user (`AuthorizedKeysFile` in the directory, `StrictModes
/// no`). Needs root (sshd switches to the user who logs in) and Debian's openssh-server.
struct SSHServer: Sendable {
  let directory: String
  let port: Int
  /// The listening sshd: its children are the sessions.
  let pid: Int32

  /// Whether a test can start one: root, and sshd and ssh-keygen installed.
  static var available: Bool {
    getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd")
      && FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh-keygen") && FileManager.default.isExecutableFile(atPath: "/usr/bin/ssh")
  }

  /// The environment that makes `arborctl --host ssh://…@127.0.0.1:PORT` reach this server
  /// with the test's key, run the built `arborctl` on the other side, and trust the
  /// throwaway host key.
  var environment: [String: String?] {
    [
      "ARBOR_SSH_COMMAND":
        "ssh -F /dev/null -i \(directory)/user_key -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR",
      "ARBOR_REMOTE_ARBORCTL": ArborctlTests.binary(),
      "ARBOR_SOCKET": nil, "ARBOR_HOST": nil,
    ]
  }

  /// `ssh://USER@127.0.0.1:PORT` followed by `path`.
  func address(user: String = "root", path: String = "") -> String { "ssh://\(user)@127.0.0.1:\(port)\(path)" }

  /// The server's sessions (the listener's children), for a test that cuts one.
  func sessions() -> [Int32] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).filter { child in
      guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
        let close = stat.lastIndex(of: ")")
      else { return false }
      // pid (comm) state ppid …
      let fields = stat[stat.index(after: close)...].split(separator: " ")
      return fields.count > 1 && Int32(fields[1]) == pid
    }
  }

  /// What sshd logged, for a failure's message.
  var log: String { (try? String(contentsOfFile: directory + "/sshd.log", encoding: .utf8)) ?? "(no log)" }

  /// A user without a home for the role tests (`useradd --system`, its password `*` so that
  /// sshd without PAM does not take it for a locked account); its uid.
  static func throwawayUser(_ name: String = "arbor-ssh-test") async throws -> UInt32 {
    if let entry = getpwnam(name) { return entry.pointee.pw_uid }
    let made = try await withDeadline("useradd \(name)") {
      try await run(
        .name("useradd"), arguments: ["--system", "--no-create-home", "--shell", "/bin/sh", "--password", "*", name], output: .discarded,
        error: .string(limit: 1 << 16))
    }
    guard made.terminationStatus.isSuccess, let entry = getpwnam(name) else {
      throw HarnessError("useradd \(name) failed: \(made.terminationStatus) \(made.standardError)")
    }
    return entry.pointee.pw_uid
  }
}

/// Starts a throwaway sshd (``SSHServer``), waits until it listens, runs `body`, then stops
/// it (SIGTERM; its sessions end with it).
func withSSHServer<T: Sendable>(_ body: (SSHServer) async throws -> T) async throws -> T {
  ProcessSlots.expectHeld("sshd")
  let directory = try DaemonHarness.temporaryDirectory()
  for key in ["host_key", "user_key"] {
    let made = try await withDeadline("ssh-keygen \(key)") {
      try await run(
        .name("ssh-keygen"), arguments: ["-q", "-t", "ed25519", "-N", "", "-C", "arbor-test", "-f", "\(directory)/\(key)"], output: .discarded,
        error: .string(limit: 1 << 16))
    }
    guard made.terminationStatus.isSuccess else { throw HarnessError("ssh-keygen failed: \(made.standardError)") }
  }
  try FileManager.default.copyItem(atPath: "\(directory)/user_key.pub", toPath: "\(directory)/authorized_keys")
  // sshd's privilege separation needs its empty directory.
  try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true)
  let port = try freeLoopbackPort()  // SocketActivationTests.swift
  let config = """
    Port \(port)
    ListenAddress 127.0.0.1
    HostKey \(directory)/host_key
    AuthorizedKeysFile \(directory)/authorized_keys
    StrictModes no
    PubkeyAuthentication yes
    PasswordAuthentication no
    KbdInteractiveAuthentication no
    UsePAM no
    PermitRootLogin prohibit-password
    PidFile \(directory)/sshd.pid
    LogLevel VERBOSE

    """
  try config.write(toFile: "\(directory)/sshd_config", atomically: true, encoding: .utf8)
  let log = try FileDescriptor.open(
    FilePath("\(directory)/sshd.log"), .writeOnly, options: [.create, .append], permissions: [.ownerReadWrite, .groupRead, .otherRead])
  let result = try await run(
    .path("/usr/sbin/sshd"), arguments: ["-D", "-e", "-f", "\(directory)/sshd_config"], input: .none, output: .discarded,
    error: .fileDescriptor(log, closeAfterSpawningProcess: true)
  ) { execution -> Result<T, any Error> in
    let server = SSHServer(directory: directory, port: port, pid: execution.processIdentifier.value)
    do {
      try await eventually("sshd to listen on 127.0.0.1:\(port)") {
        server.log.contains("Server listening on 127.0.0.1 port \(port)") || kill(server.pid, 0) != 0
      }
      guard kill(server.pid, 0) == 0 else { throw HarnessError("sshd did not start:\n\(server.log)") }
      let value = try await body(server)
      try? execution.send(signal: .terminate)
      return .success(value)
    } catch {
      try? execution.send(signal: .kill)
      return .failure(error)
    }
  }
  return try result.closureResult.get()
}
