import Foundation

/// Where the daemon puts its socket and its state, resolved from the options and the
/// environment.
///
/// Socket: `--socket`, else `$RUNTIME_DIRECTORY/NAME.sock` (systemd's `RuntimeDirectory=`),
/// else `$XDG_RUNTIME_DIR/arbor/NAME.sock`, else `/run/arbor/NAME.sock` for root and
/// `/tmp/arbor-UID/NAME.sock` for anyone else.
///
/// State: `--state-dir`, else `$STATE_DIRECTORY` (systemd's `StateDirectory=`), else
/// `$XDG_STATE_HOME/arbor/NAME`, else `/var/lib/arbor/NAME` for root and
/// `~/.local/state/arbor/NAME` for anyone else.
///
/// ```swift
/// let paths = DaemonPaths(name: "counterfactd", options: options, environment: ProcessInfo.processInfo.environment)
/// print(paths.socket, paths.stateDirectory)
/// ```
public struct DaemonPaths: Sendable, Hashable {
  public var socket: String
  public var stateDirectory: String

  public init(socket: String, stateDirectory: String) {
    self.socket = socket
    self.stateDirectory = stateDirectory
  }

  public init(name: String, options: DaemonOptions, environment: [String: String], uid: UInt32 = getuid()) {
    func nonEmpty(_ key: String) -> String? {
      guard let value = environment[key], !value.isEmpty else { return nil }
      // systemd passes several directories separated by colons; the first is ours.
      return String(value.split(separator: ":").first ?? Substring(value))
    }
    if let socket = options.socket {
      self.socket = socket
    } else if let runtime = nonEmpty("RUNTIME_DIRECTORY") {
      self.socket = runtime + "/\(name).sock"
    } else if let runtime = nonEmpty("XDG_RUNTIME_DIR") {
      self.socket = runtime + "/arbor/\(name).sock"
    } else if uid == 0 {
      self.socket = "/run/arbor/\(name).sock"
    } else {
      self.socket = "/tmp/arbor-\(uid)/\(name).sock"
    }
    if let state = options.stateDirectory {
      self.stateDirectory = state
    } else if let state = nonEmpty("STATE_DIRECTORY") {
      self.stateDirectory = state
    } else if let state = nonEmpty("XDG_STATE_HOME") {
      self.stateDirectory = state + "/arbor/\(name)"
    } else if uid == 0 {
      self.stateDirectory = "/var/lib/arbor/\(name)"
    } else {
      let home = nonEmpty("HOME") ?? NSHomeDirectory()
      self.stateDirectory = home + "/.local/state/arbor/\(name)"
    }
  }

  /// The store: the SQLite database of snapshots and the journal (with its `-wal` and
  /// `-shm` files beside it).
  public var storeFile: String { stateDirectory + "/arbor.sqlite" }
}
