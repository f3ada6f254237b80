import ArborRPC

/// Why a call to the daemon failed.
///
/// ```swift
/// do { _ = try await connection.call("state.get", ["path": "/nope"]) }
/// catch .daemon(let error) { print(error.name ?? "", error.message) }   // org.arbor.PathNotFound …
/// ```
public enum ArborClientError: Error, Sendable, CustomStringConvertible {
  /// The daemon answered with an error.
  case daemon(RPCError)
  /// Nothing listens on the socket (or it cannot be reached).
  case cannotConnect(path: String, reason: String)
  /// The connection closed before the reply came.
  case connectionClosed
  /// The program that carried the connection ended on its own: ssh, for a daemon reached
  /// through `ssh://` (the network went, sshd or ssh was stopped). `address` is the daemon's
  /// (`ssh://user@host`), `reason` the last line ssh wrote on standard error.
  case transportEnded(address: String, reason: String)
  /// The daemon's reply was not JSON-RPC.
  case malformedReply(String)
  /// The daemon ended a watch (`watch.closed`), for example an event watch that fell too
  /// far behind.
  case watchClosed(subscription: Int64, reason: String)
  /// The parameters of a typed call could not be encoded as JSON (a non-finite number).
  case unencodableParams(method: String, reason: String)
  /// A watched patch did not apply to the value it was sent for: the client's copy and
  /// the daemon's state parted ways.
  case patchFailed(revision: UInt64, reason: String)

  /// Whether the daemon answered with `error`: the test to write rather than comparing
  /// ``name`` with a string.
  ///
  /// ```swift
  /// do { try await client.call("intent.call", ["intent": "setSetpoint", "params": ["to": 45]]) }
  /// catch where error.is(.invalidParameter) { print(error) }
  /// ```
  public func `is`(_ error: ArborError) -> Bool {
    if case .daemon(let answered) = self { return answered.is(error) }
    return false
  }

  /// The daemon's stable error name (`org.arbor.IntentNotFound`, …), when the daemon
  /// answered with an error that has one.
  public var name: String? {
    if case .daemon(let error) = self { return error.name }
    return nil
  }

  public var description: String {
    switch self {
    case .daemon(let error): return error.description
    case .cannotConnect(let path, let reason) where SSHAddress.isSSH(path):
      return "cannot connect to \(path): \(reason)"
    case .cannotConnect(let path, let reason):
      return "cannot connect to \(path): \(reason). Is the daemon running? Start it (for example `make run`) or pass its socket with --socket."
    case .connectionClosed: return "the connection to the daemon closed"
    case .transportEnded(let address, let reason): return "the connection to \(address) ended: \(reason)"
    case .malformedReply(let reason): return "the daemon's reply is not JSON-RPC: \(reason)"
    case .watchClosed(let subscription, let reason): return "the daemon closed watch \(subscription): \(reason)"
    case .patchFailed(let revision, let reason): return "the patch of revision \(revision) does not apply: \(reason)"
    case .unencodableParams(let method, let reason): return "the parameters of \(method) cannot be sent as JSON: \(reason)"
    }
  }
}
