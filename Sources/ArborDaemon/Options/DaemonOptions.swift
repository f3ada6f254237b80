import ArborStorage
import ArgumentParser

/// The daemon's command-line options, embeddable in the user's own command.
///
/// Every option has a default that works for an unprivileged user with no configuration;
/// the socket and the state directory also follow systemd's `$RUNTIME_DIRECTORY` and
/// `$STATE_DIRECTORY`, then `$XDG_RUNTIME_DIR` and `$XDG_STATE_HOME` (see ``DaemonPaths``).
///
/// ```swift
/// @main struct Counterfactd: AsyncParsableCommand {
///   @OptionGroup var options: DaemonOptions
///   func run() async throws {
///     try await ArborDaemon(name: "counterfactd", options: options) { AppModel() }.run()
///   }
/// }
/// ```
public struct DaemonOptions: ParsableArguments, Sendable {
  @Flag(name: .long, help: "Print the daemon's name, Arbor's release and the protocol version, then exit.")
  public var version = false

  @Option(name: .long, help: "The Unix socket to listen on (default: NAME.sock in $RUNTIME_DIRECTORY, else $XDG_RUNTIME_DIR/arbor, else /run/arbor for root and /tmp/arbor-UID for anyone else).")
  public var socket: String?

  @Option(name: .customLong("state-dir"), help: "Where the state is kept (default: $STATE_DIRECTORY, else $XDG_STATE_HOME/arbor/NAME, else /var/lib/arbor/NAME for root and ~/.local/state/arbor/NAME for anyone else).")
  public var stateDirectory: String?

  @Option(name: .long, help: "Keep the state in PostgreSQL instead of the state directory's SQLite file: postgres://USER@HOST:PORT/DB or postgresql:///DB?host=/SOCKET/DIRECTORY. One daemon leads a database at a time.")
  public var store: String?

  @Flag(
    inversion: .prefixedNo,
    help: "On a standby (several daemons on one PostgreSQL --store): forward intent.call to the leader through the database and answer with its reply, rather than refuse it with org.arbor.NotLeader.")
  public var forwardIntents = true

  @Option(name: .long, help: "When journalled revisions reach the disk: always (an intent's reply waits for it), batch (within --fsync-window) or off (left to the OS).")
  public var fsync: FsyncPolicy = .batch

  @Option(name: .customLong("fsync-window"), help: "With --fsync batch or off: how long a committed revision may wait to be written, in milliseconds.")
  public var fsyncWindow: Int = 100

  @Option(name: .long, help: "How many recent revisions are kept: in memory for `state.watch` with `since`, in the journal for `history.changes`, `state.at` and resuming across restarts.")
  public var history: Int = 1_000

  @Option(name: .customLong("undo-depth"), help: "How many undo steps are kept, in memory and in the journal, so that `history.undo` and `history.redo` go on after a restart (at least 1).")
  public var undoDepth: Int = 100

  @Option(name: .customLong("snapshot-every"), help: "Save a snapshot (and trim the journal) every N revisions.")
  public var snapshotEvery: Int = 10_000

  @Option(name: .customLong("snapshot-interval"), help: "Save a snapshot at least this often when something changed, in seconds.")
  public var snapshotInterval: Int = 300

  @Option(name: .customLong("max-line-bytes"), help: "The longest request line accepted, in bytes.")
  public var maxLineBytes: Int = 16 << 20

  @Option(name: .customLong("max-output-bytes"), help: "Unread output held for one connection before it is closed, in bytes.")
  public var maxOutputBytes: Int = 64 << 20

  @Option(name: .customLong("watch-queue"), help: "Notifications one state watch may have unread before it is coalesced into a resync; an event watch is closed instead.")
  public var watchQueue: Int = 1_000

  @Option(name: .customLong("max-connections"), help: "Connections served at once; more are refused.")
  public var maxConnections: Int = 1_024

  @Option(name: .customLong("max-in-flight"), help: "Requests one connection may have running at once before the daemon stops reading from it.")
  public var maxInFlight: Int = 64

  @Option(name: .customLong("event-loops"), help: "Threads that serve the connections (default 0: one per core).")
  public var eventLoops: Int = 0

  @Option(name: .customLong("readers"), help: "Who may read and watch: comma-separated uid:N, gid:N (a bare number is a uid).")
  public var readers: PrincipalList = PrincipalList()

  @Option(name: .customLong("operators"), help: "Who may also call intents: comma-separated uid:N, gid:N.")
  public var operators: PrincipalList = PrincipalList()

  @Option(name: .customLong("admins"), help: "Who may also restore snapshots (default: the daemon's own uid).")
  public var admins: PrincipalList = PrincipalList()

  @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
  public var logLevel: String = "info"

  @Option(name: .customLong("status-interval"), help: "How often systemd's status line (STATUS=) is refreshed, in seconds.")
  public var statusInterval: Double = 5

  @Option(
    name: .long,
    help: "Serve the inspector, /metrics, /healthz and /readyz over HTTP at HOST:PORT (off by default; loopback only unless --http-allow-remote; port 0 picks a free one)."
  )
  public var http: HTTPAddress?

  @Flag(name: .customLong("http-allow-remote"), help: "Let --http listen on an address other than loopback (HTTP carries no peer credentials: see Docs/Operations.md).")
  public var httpAllowRemote = false

  @Option(
    name: .customLong("http-token-file"),
    help: "A file whose first line is a token: an inspector WebSocket that presents it has the operator role (without it, the inspector is read-only). Read at every connection, so it can be replaced while the daemon runs."
  )
  public var httpTokenFile: String?

  @Option(name: .long, help: "A settings file (key = value: readers, operators, admins, the limits, log-level) read at start and again on SIGHUP.")
  public var config: String?

  public init() {}
}

/// When journalled revisions are made durable (`--fsync`).
/// `--fsync` takes the store's policies by name: `always`, `batch`, `off`.
extension FsyncPolicy: ExpressibleByArgument {}
