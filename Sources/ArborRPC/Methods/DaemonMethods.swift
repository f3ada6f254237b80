import ArborJSON

/// `rpc.discover`: the OpenRPC 1.3 document of the daemon.
///
/// ```swift
/// let document = try await client.call(RPCDiscover.self, NoParams())
/// print(document.methods.map(\.name))
/// ```
public enum RPCDiscover: ArborMethodDefinition {
  public typealias Params = NoParams
  public typealias Result = OpenRPCDocument
  public static var method: ArborMethod { .discover }
  public static var summary: String { "This document." }
}

/// `daemon.metrics`: the figures of the HTTP listener's `/metrics`, in the Prometheus text
/// format, over the socket (with or without `--http`): what `arborctl top` shows.
///
/// ```swift
/// let metrics = try await client.call(DaemonMetrics.self, NoParams())
/// print(metrics.text.split(separator: "\n").filter { $0.hasPrefix("arbor_revision ") })
/// ```
public enum DaemonMetrics: ArborMethodDefinition {
  public typealias Params = NoParams
  public static var method: ArborMethod { .metrics }
  public static var summary: String {
    "Requests by method and outcome, request latency, intents, connections, watches, resyncs, the journal and snapshots, in the Prometheus text format."
  }

  /// What `daemon.metrics` replies.
  ///
  /// ```swift
  /// let reply = DaemonMetrics.Result(format: DaemonMetrics.format, text: "arbor_revision 3.0\n")
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    /// The exposition format: ``DaemonMetrics/format``.
    public var format: String
    /// The figures, as `/metrics` serves them.
    public var text: String

    public init(format: String, text: String) {
      self.format = format
      self.text = text
    }
  }

  /// The Prometheus text format's content type, version 0.0.4.
  public static let format = "text/plain; version=0.0.4"
}

/// `daemon.status`: the daemon's name, version, figures, journal and undo state.
///
/// ```swift
/// let status = try await client.call(DaemonStatus.self, NoParams())
/// print(status.revision, status.journal.writes)
/// ```
public enum DaemonStatus: ArborMethodDefinition {
  public typealias Params = NoParams
  public static var method: ArborMethod { .status }
  public static var summary: String {
    "The daemon's name, version, pid, uptime, revision, clients, subscriptions, intent rate, journal and undo state."
  }

  /// What `daemon.status` replies.
  ///
  /// ```swift
  /// let status = try await client.call(DaemonStatus.self, NoParams())
  /// print("\(status.name) \(status.version), protocol \(status.protocol)")
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    /// The daemon's name, such as `counterfactd`.
    public var name: String
    /// Arbor's release.
    public var version: String
    /// The protocol's version (``ArborProtocol/version``).
    public var `protocol`: Int
    public var pid: Int
    /// The root model's type name.
    public var root: String
    /// Seconds since the daemon started, to the millisecond.
    public var uptime: Double
    public var revision: Revision
    public var clients: Int
    public var subscriptions: Int
    /// Intents per second over the last 10 s, to a tenth.
    public var intentsPerSecond: Double
    public var intentsInFlight: Int
    public var journal: Journal
    /// Nil (`null` on the wire) when no model of the tree tracks undo.
    public var undo: Undo?
    /// The HTTP listener's address (`--http`), such as `http://127.0.0.1:9090/`; absent
    /// when there is none.
    public var http: String?
    /// How many times the daemon's connections were handed to a next process since the
    /// last start that kept none (0 for that start): each hand-over adds one. Absent from
    /// daemons before it.
    public var generation: Int?
    /// When this process started (ISO 8601, UTC, with milliseconds).
    public var startedAt: String?

    /// A status, as the daemon builds it.
    ///
    /// ```swift
    /// let status = DaemonStatus.Result(name: "d", version: "0.1.0", protocol: 1, pid: 1, root: "App", uptime: 1, revision: 0,
    ///   clients: 1, subscriptions: 0, intentsPerSecond: 0, intentsInFlight: 0, journal: journal, undo: nil)
    /// ```
    public init(
      name: String, version: String, protocol: Int, pid: Int, root: String, uptime: Double, revision: Revision, clients: Int,
      subscriptions: Int, intentsPerSecond: Double, intentsInFlight: Int, journal: Journal, undo: Undo?, http: String? = nil,
      generation: Int? = nil, startedAt: String? = nil
    ) {
      self.name = name
      self.version = version
      self.protocol = `protocol`
      self.pid = pid
      self.root = root
      self.uptime = uptime
      self.revision = revision
      self.clients = clients
      self.subscriptions = subscriptions
      self.intentsPerSecond = intentsPerSecond
      self.intentsInFlight = intentsInFlight
      self.journal = journal
      self.undo = undo
      self.http = http
      self.generation = generation
      self.startedAt = startedAt
    }

    enum CodingKeys: String, CodingKey {
      case name, version, `protocol`, pid, root, uptime, revision, clients, subscriptions, intentsPerSecond, intentsInFlight, journal, undo,
        http, generation, startedAt
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(name, forKey: .name)
      try container.encode(version, forKey: .version)
      try container.encode(`protocol`, forKey: .protocol)
      try container.encode(pid, forKey: .pid)
      try container.encode(root, forKey: .root)
      try container.encode(uptime, forKey: .uptime)
      try container.encode(revision, forKey: .revision)
      try container.encode(clients, forKey: .clients)
      try container.encode(subscriptions, forKey: .subscriptions)
      try container.encode(intentsPerSecond, forKey: .intentsPerSecond)
      try container.encode(intentsInFlight, forKey: .intentsInFlight)
      try container.encode(journal, forKey: .journal)
      try container.encodeOrNull(undo, forKey: .undo)
      try container.encodeIfPresent(http, forKey: .http)
      try container.encodeIfPresent(generation, forKey: .generation)
      try container.encodeIfPresent(startedAt, forKey: .startedAt)
    }
  }

  /// The store, under `journal` (see `Docs/Operations.md`).
  ///
  /// ```swift
  /// if status.journal.writes == "refused" { print(status.journal.refusal?.reason ?? "") }
  /// ```
  public struct Journal: Codable, Sendable, Hashable {
    public var file: String
    /// `always`, `batch` or `never`.
    public var fsync: String
    /// The database and its log, in bytes.
    public var bytes: Int
    public var writtenRevision: Revision
    public var transactions: Int
    /// Revisions committed and not yet written.
    public var lag: Int
    public var snapshotRevision: Revision
    public var snapshotsSaved: Int
    /// The oldest revision whose state can be read back; nil (`null`) when none can.
    public var oldestRevision: Revision?
    /// `accepted` or `refused`.
    public var writes: String
    /// Why writes are refused, when they are.
    public var refusal: Refusal?
    /// The last failure to write, when there is one.
    public var error: String?
    /// Who leads the store, for a PostgreSQL store (several daemons may share one); absent
    /// for the SQLite store.
    public var lead: Lead?

    /// The journal's figures.
    ///
    /// ```swift
    /// let journal = DaemonStatus.Journal(file: "/var/lib/d.sqlite", fsync: "batch", bytes: 0, writtenRevision: 0, transactions: 0,
    ///   lag: 0, snapshotRevision: 0, snapshotsSaved: 0, oldestRevision: 0, writes: "accepted")
    /// ```
    public init(
      file: String, fsync: String, bytes: Int, writtenRevision: Revision, transactions: Int, lag: Int, snapshotRevision: Revision,
      snapshotsSaved: Int, oldestRevision: Revision?, writes: String, refusal: Refusal? = nil, error: String? = nil, lead: Lead? = nil
    ) {
      self.file = file
      self.fsync = fsync
      self.bytes = bytes
      self.writtenRevision = writtenRevision
      self.transactions = transactions
      self.lag = lag
      self.snapshotRevision = snapshotRevision
      self.snapshotsSaved = snapshotsSaved
      self.oldestRevision = oldestRevision
      self.writes = writes
      self.refusal = refusal
      self.error = error
      self.lead = lead
    }

    enum CodingKeys: String, CodingKey {
      case file, fsync, bytes, writtenRevision, transactions, lag, snapshotRevision, snapshotsSaved, oldestRevision, writes, refusal, error,
        lead
    }

    public func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(file, forKey: .file)
      try container.encode(fsync, forKey: .fsync)
      try container.encode(bytes, forKey: .bytes)
      try container.encode(writtenRevision, forKey: .writtenRevision)
      try container.encode(transactions, forKey: .transactions)
      try container.encode(lag, forKey: .lag)
      try container.encode(snapshotRevision, forKey: .snapshotRevision)
      try container.encode(snapshotsSaved, forKey: .snapshotsSaved)
      try container.encodeOrNull(oldestRevision, forKey: .oldestRevision)
      try container.encode(writes, forKey: .writes)
      try container.encodeIfPresent(refusal, forKey: .refusal)
      try container.encodeIfPresent(error, forKey: .error)
      try container.encodeIfPresent(lead, forKey: .lead)
    }
  }

  /// Who leads a PostgreSQL store, under `journal.lead`.
  ///
  /// ```swift
  /// if status.journal.lead?.standby == true { print("a standby of", status.journal.lead?.leader ?? "?") }
  /// ```
  public struct Lead: Codable, Sendable, Hashable {
    /// Whether this daemon is a standby (it writes nothing; the leader does).
    public var standby: Bool
    /// Who leads: a name, pid and host; nil before any daemon led.
    public var leader: String?
    /// The leader's term: raised by each daemon that takes the lead.
    public var term: Int64?

    public init(standby: Bool, leader: String?, term: Int64?) {
      self.standby = standby
      self.leader = leader
      self.term = term
    }
  }

  /// Why the journal refuses writes (`Docs/Operations.md`, *When the disk fails*).
  ///
  /// ```swift
  /// let refusal = DaemonStatus.Refusal(cause: "full", reason: "the disk is full", held: 3, writtenRevision: 40)
  /// ```
  public struct Refusal: Codable, Sendable, Hashable {
    /// `full`, `readOnly`, `busy`, `replaced`, `io` or `snapshot`.
    public var cause: String
    public var reason: String
    /// Revisions held in memory, not written.
    public var held: Int
    public var writtenRevision: Revision

    /// A refusal.
    ///
    /// ```swift
    /// let refusal = DaemonStatus.Refusal(cause: "io", reason: "I/O error", held: 1, writtenRevision: 9)
    /// ```
    public init(cause: String, reason: String, held: Int, writtenRevision: Revision) {
      self.cause = cause
      self.reason = reason
      self.held = held
      self.writtenRevision = writtenRevision
    }
  }

  /// Whether a step can be undone or redone, under `undo`.
  ///
  /// ```swift
  /// if status.undo?.canUndo == true { print("undo is possible") }
  /// ```
  public struct Undo: Codable, Sendable, Hashable {
    public var canUndo: Bool
    public var canRedo: Bool

    /// The undo system's state.
    ///
    /// ```swift
    /// let undo = DaemonStatus.Undo(canUndo: true, canRedo: false)
    /// ```
    public init(canUndo: Bool, canRedo: Bool) {
      self.canUndo = canUndo
      self.canRedo = canRedo
    }
  }
}

/// `daemon.upgrade {binary?}` (admin): the daemon starts its binary again (or `binary`),
/// with its own arguments, and once that process is ready, replies with its pid, stops,
/// and hands it the listening socket and every connection with its watches. The reply's
/// connection is handed over too: its next answers come from the new process. A daemon
/// on a shared store refuses, and so does the old process when
/// the new one does not get ready (``ArborError/upgradeFailed``, the old one serves on).
///
/// ```swift
/// let started = try await client.call(DaemonUpgradeMethod.self, .init())
/// print(started.pid)   // the process that serves from now on
/// ```
public enum DaemonUpgradeMethod: ArborMethodDefinition {
  public static var method: ArborMethod { .upgrade }
  public static var summary: String {
    "Starts the daemon's binary again (or another) and hands it the socket and every connection with its watches; the reply names the process that serves from then on."
  }
  public static var parameterNotes: [String: String] {
    ["binary": "the path of the binary to start, on the daemon's machine; by default the file the daemon was started from (a new build put there)"]
  }

  /// Which binary to start.
  ///
  /// ```swift
  /// let params = DaemonUpgradeMethod.Params(binary: "/usr/local/bin/counterfactd")
  /// ```
  public struct Params: Codable, Sendable, Hashable {
    /// The binary; nil for the file the daemon was started from.
    public var binary: String?

    /// The daemon's own binary, unless `binary` is given.
    ///
    /// ```swift
    /// let params = DaemonUpgradeMethod.Params()
    /// ```
    public init(binary: String? = nil) { self.binary = binary }
  }

  /// The process that takes over, already running and ready.
  ///
  /// ```swift
  /// let result = DaemonUpgradeMethod.Result(pid: 4242, binary: "/usr/local/bin/counterfactd")
  /// ```
  public struct Result: Codable, Sendable, Hashable {
    /// The new process's pid.
    public var pid: Int32
    /// The binary it runs.
    public var binary: String

    /// The new process `pid`, running `binary`.
    ///
    /// ```swift
    /// let result = DaemonUpgradeMethod.Result(pid: 4242, binary: "/usr/local/bin/counterfactd")
    /// ```
    public init(pid: Int32, binary: String) {
      self.pid = pid
      self.binary = binary
    }
  }
}
