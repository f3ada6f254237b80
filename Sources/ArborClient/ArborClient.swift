import ArborJSON
import ArborLocking
import ArborRPC

/// A client of a daemon's socket: single calls on a connection of their own, and watches
/// that keep a value current across daemon restarts.
///
/// Given several sockets (daemons sharing one PostgreSQL store: a leader and its
/// standbys), each connection goes to the one that answered last, else the next that
/// answers, so that calls and watches move on when a daemon goes away.
///
/// ```swift
/// let client = ArborClient(socketPath: "/run/arbor/counterfactd.sock")
/// try await client.call("intent.call", ["intent": "addButtonTapped"])
/// for try await update in client.watch("/counters/0/counter/count") {
///   print(update.revision, update.value ?? "gone")
/// }
/// ```
public struct ArborClient: ArborCaller {
  /// The daemons' sockets, in the order they are tried.
  public var socketPaths: [String]
  /// What watches do when the connection is lost.
  public var reconnect: ReconnectPolicy
  /// A daemon on another machine, reached through ssh; when set, every connection goes
  /// there (``ArborConnection/connect(over:command:maxLineLength:)``) and `socketPaths`
  /// is not used.
  public var ssh: SSHAddress?
  /// The ssh command of ``ssh`` connections: `$ARBOR_SSH_COMMAND` and
  /// `$ARBOR_REMOTE_ARBORCTL` when they are set, read when the client is made.
  public var sshCommand: SSHCommand
  /// The index of the socket that answered last.
  private let preferred = LockedState(0)

  /// The first socket.
  public var socketPath: String {
    get { socketPaths.first ?? "" }
    set { socketPaths = [newValue] + socketPaths.dropFirst() }
  }

  public init(socketPath: String, reconnect: ReconnectPolicy = .default) {
    self.init(socketPaths: [socketPath], reconnect: reconnect)
  }

  /// A client of several daemons' sockets (a leader and its standbys): each connection
  /// goes to the one that answered last, else the next one that answers.
  ///
  /// ```swift
  /// let client = ArborClient(socketPaths: ["/run/arbor/a.sock", "/run/arbor/b.sock"])
  /// ```
  public init(socketPaths: [String], reconnect: ReconnectPolicy = .default) {
    self.socketPaths = socketPaths
    self.reconnect = reconnect
    self.sshCommand = SSHCommand.fromEnvironment()
  }

  /// A client of a daemon on another machine, through ssh: every connection (each call,
  /// each watch, and each reconnection of a watch) starts `ssh … host -- arborctl bridge`
  /// (``SSHCommand``) and speaks the protocol over it, as the remote user.
  ///
  /// ```swift
  /// let client = ArborClient(ssh: try SSHAddress(parsing: "ssh://ops@build-1/run/arbor/counterfactd.sock"))
  /// let status = try await client.call(DaemonStatus.self)
  /// ```
  public init(ssh: SSHAddress, command: SSHCommand = .fromEnvironment(), reconnect: ReconnectPolicy = .default) {
    self.socketPaths = []
    self.reconnect = reconnect
    self.ssh = ssh
    self.sshCommand = command
  }

  /// A client of the daemon at `host`: an `ssh://[user@]host[:port][/path/to.sock]` address
  /// (as `arborctl --host` and `$ARBOR_HOST` take), else a socket's path.
  ///
  /// ```swift
  /// let remote = try ArborClient(host: "ssh://ops@build-1")
  /// let local = try ArborClient(host: "/run/arbor/counterfactd.sock")
  /// ```
  public init(host: String, reconnect: ReconnectPolicy = .default) throws(SSHAddress.ParseError) {
    if SSHAddress.isSSH(host) {
      self.init(ssh: try SSHAddress(parsing: host), reconnect: reconnect)
    } else {
      self.init(socketPaths: [host], reconnect: reconnect)
    }
  }

  /// Where the daemon is, as messages name it: the `ssh://` address, else the sockets.
  public var address: String { ssh?.description ?? socketPaths.joined(separator: ", ") }

  /// A new connection, for several calls in a row or a batch: to the socket that answered
  /// last, else to the next one that answers; the last failure when none does. Through
  /// ssh, a new ssh process.
  public func connect() async throws(ArborClientError) -> ArborConnection {
    if let ssh { return try await ArborConnection.connect(over: ssh, command: sshCommand) }
    let paths = socketPaths
    guard !paths.isEmpty else { throw ArborClientError.cannotConnect(path: "", reason: "no socket was given") }
    let first = preferred.withLock { $0 } % paths.count
    var failure: ArborClientError?
    for offset in 0..<paths.count {
      let index = (first + offset) % paths.count
      do {
        let connection = try await ArborConnection.connect(to: paths[index])
        preferred.withLock { $0 = index }
        return connection
      } catch {
        failure = error
      }
    }
    guard paths.count > 1, case .cannotConnect(_, let reason)? = failure else { throw failure! }
    throw ArborClientError.cannotConnect(path: paths.joined(separator: ", "), reason: "none of them answers (the last: \(reason))")
  }

  /// Calls one method on a connection of its own and returns its result. The calls by
  /// ``ArborMethod`` and the typed calls (``ArborCaller``) go through it:
  ///
  /// ```swift
  /// let reply = try await client.call(IntentCall.self, .init(target: "/counters/0/counter", intent: "incrementTapped"))
  /// ```
  @discardableResult
  public func call(_ method: String, _ params: JSONValue? = nil) async throws(ArborClientError) -> JSONValue {
    let connection = try await connect()
    defer { connection.close() }
    return try await connection.call(method, params)
  }

  /// The value at `path` (a JSON Pointer, the root by default), first as it is now (or as
  /// it was at `since`), then after every revision that changed it, each patch applied
  /// in order. See ``StateWatch``.
  public func watch(_ path: String = "", since: UInt64? = nil, onConnection: (@Sendable (WatchConnectionEvent) -> Void)? = nil) -> StateWatch {
    StateWatch(client: self, path: path, since: since, onConnection: onConnection)
  }

  /// The Codable events sent by models at or under `path`, of the given types (all when
  /// nil). See ``EventWatch``.
  public func events(_ path: String = "", types: [String]? = nil, onConnection: (@Sendable (WatchConnectionEvent) -> Void)? = nil) -> EventWatch {
    EventWatch(client: self, path: path, types: types, onConnection: onConnection)
  }
}
