#if canImport(Glibc)
  import Glibc
#endif

/// The command that reaches a daemon through ssh: `ssh -o BatchMode=yes [-p PORT]
/// [user@]host -- arborctl bridge [--socket PATH]`. The ssh program and its options, and the
/// remote `arborctl`, can be replaced: in the environment with `$ARBOR_SSH_COMMAND` (for
/// example `ssh -i ~/.ssh/arbor -o StrictHostKeyChecking=accept-new`) and
/// `$ARBOR_REMOTE_ARBORCTL` (for example `/opt/arbor/bin/arborctl`).
///
/// ```swift
/// let command = SSHCommand(ssh: ["ssh", "-i", "/home/ops/.ssh/arbor"], remoteArborctl: "/opt/arbor/bin/arborctl")
/// command.arguments(for: try SSHAddress(parsing: "ssh://ops@build-1:2222"))
/// // ["ssh", "-i", "/home/ops/.ssh/arbor", "-p", "2222", "ops@build-1", "--", "/opt/arbor/bin/arborctl bridge"]
/// ```
public struct SSHCommand: Sendable, Hashable {
  /// The ssh program and the options it is given before the destination.
  public var ssh: [String]
  /// The remote `arborctl`, as the remote shell reads it (so it may be a command line such
  /// as `sudo -u arbor arborctl`).
  public var remoteArborctl: String
  /// More arguments of the remote `arborctl bridge` (for example `--timeout 5`).
  public var bridgeArguments: [String]

  /// `ssh -o BatchMode=yes`: ssh never asks for a password or a passphrase (there is no
  /// one to answer); a key or an agent must let it in.
  public static let defaultSSH = ["ssh", "-o", "BatchMode=yes"]

  public init(ssh: [String] = SSHCommand.defaultSSH, remoteArborctl: String = "arborctl", bridgeArguments: [String] = []) {
    self.ssh = ssh
    self.remoteArborctl = remoteArborctl
    self.bridgeArguments = bridgeArguments
  }

  /// The command as the environment sets it: `$ARBOR_SSH_COMMAND` (split into words as a
  /// shell does: spaces, quotes and backslashes) in place of `ssh -o BatchMode=yes`, and
  /// `$ARBOR_REMOTE_ARBORCTL` in place of `arborctl`.
  ///
  /// ```swift
  /// // ARBOR_SSH_COMMAND="ssh -i key -o StrictHostKeyChecking=no"
  /// SSHCommand.fromEnvironment().ssh   // ["ssh", "-i", "key", "-o", "StrictHostKeyChecking=no"]
  /// ```
  public static func fromEnvironment(bridgeArguments: [String] = []) -> SSHCommand {
    func variable(_ name: String) -> String? {
      guard let value = getenv(name).map({ String(cString: $0) }), !value.trimmingSpaces.isEmpty else { return nil }
      return value
    }
    let ssh = variable("ARBOR_SSH_COMMAND").map(ShellWords.split) ?? defaultSSH
    return SSHCommand(ssh: ssh.isEmpty ? defaultSSH : ssh, remoteArborctl: variable("ARBOR_REMOTE_ARBORCTL") ?? "arborctl", bridgeArguments: bridgeArguments)
  }

  /// The arguments of the ssh process for `address`, the program first. The remote
  /// command is one word after `--`: ssh hands it to the remote user's shell, so the
  /// socket's path and the bridge's arguments are quoted for it.
  public func arguments(for address: SSHAddress) -> [String] {
    arguments(for: address, running: ["bridge"] + (address.socketPath.map { ["--socket", $0] } ?? []) + bridgeArguments)
  }

  /// The arguments of an ssh process that runs the remote `arborctl` with `arguments`
  /// (each quoted for the remote shell), the program first: how `arborctl bench` runs on
  /// the daemon's machine.
  ///
  /// ```swift
  /// SSHCommand().arguments(for: try SSHAddress(parsing: "ssh://ops@build-1"), running: ["bench", "-c", "8"])
  /// // ["ssh", "-o", "BatchMode=yes", "ops@build-1", "--", "arborctl bench -c 8"]
  /// ```
  public func arguments(for address: SSHAddress, running arguments: [String]) -> [String] {
    let remote = [remoteArborctl] + arguments.map(ShellWords.quote)
    return ssh + (address.port.map { ["-p", String($0)] } ?? []) + [address.destination, "--", remote.joined(separator: " ")]
  }
}

extension String {
  fileprivate var trimmingSpaces: Substring {
    let start = firstIndex { !$0.isWhitespace } ?? endIndex
    let end = lastIndex { !$0.isWhitespace }.map { index(after: $0) } ?? start
    return self[start..<max(start, end)]
  }
}
