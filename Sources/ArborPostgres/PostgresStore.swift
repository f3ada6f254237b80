import ArborJSON
import ArborLocking
import ArborStorage
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// The daemon's durable state in a PostgreSQL database: the SQLite store's snapshots and
/// journal, with the same layout, checksums and meaning, for daemons that outgrow one
/// machine.
///
/// Opening makes this daemon the store's **leader**: it takes a session advisory lock and
/// raises the term in `store_leader`. Every journal row carries the term it was written in;
/// each journal and snapshot transaction checks the term with `FOR SHARE` first, and a
/// revision is a primary key. A leader whose term was raised, or whose revision was taken,
/// writes nothing more (``StoreError/Kind/superseded``): no two leaders can both keep the
/// same revision.
///
/// ```swift
/// let store = try await PostgresStore.open(
///   PostgresAddress("postgresql:///arbor?host=/run/postgresql"), root: AppModel._$typeName,
///   schema: AppModel.schemaHash, fsync: .always, holder: "counterfactd on host-a", logger: logger)
/// let recovery = try store.recover()   // from a thread of your own
/// ```
public final class PostgresStore: StateStore {
  public let address: PostgresAddress
  public let fsync: FsyncPolicy
  public let recordedSchema: String?
  /// The term this daemon leads in; 0 while it is a standby.
  public var term: Int64 { leading.load(ordering: .acquiring) }
  /// Whether this daemon leads the store (else it is a standby, which writes nothing).
  public var isLeading: Bool { term > 0 }
  /// Who leads, as `store_leader.holder` says (for the others' messages).
  public let holder: String
  let logger: Logger
  /// The leader's session: holds the advisory lock, writes the journal.
  let leader: PostgresSession
  /// Writes snapshots (each transaction checks the term like the journal's).
  let snapshots: PostgresSession
  /// Reads of single statements: `history.changes`, forwarding, events, who leads.
  let reader: PostgresSession
  /// Reads in one transaction each, one at a time: recovery, `state.at`.
  let readings: PostgresSession
  /// The leader's services: forwarded intents and events for the standbys.
  let services: PostgresSession
  /// The leader's checks of its lead (``confirmLead(within:)``): a session of their own,
  /// closed when the server does not answer in time, which the leader's (holding the lock)
  /// never is for that.
  let leadChecks: PostgresSession
  /// The server's process of the leader's session (`pg_backend_pid()`), which holds the
  /// lock while this daemon leads; 0 before it took it.
  private let leaderBackend: Atomic<Int32>
  private let bytes = Atomic<Int>(0)
  /// A standby's waits for the replies of the intents it forwarded.
  let replies = ForwardedReplies()
  private let leading: Atomic<Int64>
  let root: String
  let schema: String

  public var location: String { address.description }
  public var storedBytes: Int { bytes.load(ordering: .relaxed) }

  /// Where damage is found, and what to do about it.
  var place: StoredRecords.Place {
    StoredRecords.Place(
      location: location,
      advice: "restore the database from a backup (pg_dump), or drop the store's tables to start fresh.")
  }

  private init(
    address: PostgresAddress, fsync: FsyncPolicy, recordedSchema: String?, term: Int64, holder: String, logger: Logger,
    leader: PostgresSession, backend: Int32, root: String, schema: String
  ) {
    self.address = address
    self.fsync = fsync
    self.recordedSchema = recordedSchema
    self.leading = Atomic(term)
    self.root = root
    self.schema = schema
    self.holder = holder
    self.logger = logger
    self.leader = leader
    self.snapshots = PostgresSession(address: address, logger: logger)
    self.reader = PostgresSession(address: address, logger: logger)
    self.readings = PostgresSession(address: address, logger: logger)
    self.services = PostgresSession(address: address, logger: logger)
    self.leadChecks = PostgresSession(address: address, logger: logger)
    self.leaderBackend = Atomic(backend)
  }

  /// Opens the store in the database at `address` and becomes its leader, creating the
  /// tables when there are none. When another daemon leads, it is refused, or with
  /// `standbyWhenLed` opened as a standby (``isLeading`` false: it reads, writes nothing,
  /// and ``tryToLead()`` takes over once the leader is gone). Refused, with a ``StoreError``
  /// that says what to do: a server that cannot be reached, a store of another root type,
  /// of a newer layout, or of another schema (unless `allowingOtherSchema`).
  public static func open(
    _ address: PostgresAddress, root: String, schema: String, fsync: FsyncPolicy, allowingOtherSchema: Bool = false,
    holder: String, standbyWhenLed: Bool = false, logger: Logger
  ) async throws(StoreError) -> PostgresStore {
    let location = address.description
    let leader = PostgresSession(address: address, logger: logger)
    do {
      var recorded: String?
      var term: Int64 = 0
      var backend: Int32 = 0
      _ = try await leader.connection { connection in
        let led: Bool
        do {
          backend = try await lead(connection, holder: holder, location: location, logger: logger)
          led = true
        } catch let error as StoreError where error.kind == .busy && standbyWhenLed {
          led = false
        }
        do {
          recorded = try await check(connection, root: root, schema: schema, allowingOtherSchema: allowingOtherSchema, location: location, logger: logger)
          guard led else { return }
          term = try await takeLead(connection, root: root, schema: schema, recorded: recorded, holder: holder, fsync: fsync, logger: logger)
        } catch {
          // Released now, not when the server gets round to ending the closed session: a
          // daemon started right after this refused one must not find the store led.
          if led { try? await unlock(connection, logger: logger) }
          throw error
        }
      }
      let store = PostgresStore(
        address: address, fsync: fsync, recordedSchema: recorded, term: term, holder: holder, logger: logger, leader: leader,
        backend: backend, root: root, schema: schema)
      await store.refreshSize()
      return store
    } catch {
      await leader.close()
      throw classify(error, location: location)
    }
  }

  /// A standby's try to take the lead: when the leader's lock is free, takes it, raises the
  /// term and returns true (this daemon leads from now on; it reads the journal the old
  /// leader left before it writes). False while another daemon leads.
  ///
  /// ```swift
  /// while try await !store.tryToLead() { try await Task.sleep(for: .milliseconds(200)) }
  /// ```
  public func tryToLead() async throws(StoreError) -> Bool {
    guard !isLeading else { return true }
    do {
      // A session that does not answer (a cut network) is closed and made again at the next
      // try, rather than hold the standby's watch for the lead forever.
      let term = try await leader.answering(within: Self.readTimeout) { [self] connection -> Int64? in
        do {
          leaderBackend.store(try await Self.lead(connection, holder: holder, location: location, logger: logger), ordering: .releasing)
        } catch let error as StoreError where error.kind == .busy {
          return nil
        }
        do {
          let recorded = try await Self.check(connection, root: root, schema: schema, allowingOtherSchema: true, location: location, logger: logger)
          return try await Self.takeLead(connection, root: root, schema: schema, recorded: recorded, holder: holder, fsync: fsync, logger: logger)
        } catch {
          try? await Self.unlock(connection, logger: logger)
          throw error
        }
      }
      guard let term else { return false }
      leading.store(term, ordering: .releasing)
      return true
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// For the leader: makes sure it still leads. A session the server ended (or a write
  /// closed) is made again first, with the lock taken again and the term checked
  /// (``leaderConnection()``); then a session of its own (``leadChecks``) reads the store's
  /// term and which session holds the leader's lock, and must answer within `timeout`.
  /// ``StoreError/Kind/superseded`` when another daemon leads now;
  /// ``StoreError/Kind/unreachable`` when the server did not answer in time.
  ///
  /// A slow answer never costs the lead: the session that holds the lock is not the one
  /// that is asked, and is never closed for being slow. (It was, once: a check queued
  /// behind a long journal transaction on a loaded machine closed the leader's session,
  /// which gave the lock to a standby.) When the server holds the lock for no session of
  /// this daemon's (it ended the session, and the connection has not said so yet), the
  /// session is made again here.
  public func confirmLead(within timeout: Duration = .seconds(3)) async throws(StoreError) {
    let location = self.location
    do {
      if !leader.isOpen { _ = try await leaderConnection() }
      let term = try leadingTerm()
      let (current, holders) = try await leadChecks.answering(within: timeout) { [logger] connection in
        let rows = try await connection.query(PostgresQuery(unsafeSQL: Self.leadCheckQuery), logger: logger).collect()
        return try rows.first?.decode((Int64?, [Int32]).self) ?? (nil, [])
      }
      guard current == term else { throw superseded(term: current) }
      if !holders.contains(leaderBackend.load(ordering: .acquiring)) {
        logger.warning("\(location) holds the leader's lock for no session of this daemon's: its session is made again")
        await leader.close()
        _ = try await leaderConnection()
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// The store's term, and the server processes of the sessions that hold the leader's
  /// advisory lock (a `bigint` key shows in `pg_locks` as its high and low 32 bits).
  static let leadCheckQuery = """
    SELECT (SELECT term FROM store_leader WHERE id = 1),
      ARRAY(SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 1
        AND classid = \(PostgresSchema.leaderLock >> 32)::oid AND objid = \(PostgresSchema.leaderLock & 0xFFFF_FFFF)::oid
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
    """

  /// For a leader that lost the lead: becomes a standby (writes nothing; ``tryToLead()``
  /// may take the lead again later). Its session, and any lock it still held, goes.
  public func stepDown() async {
    leading.store(0, ordering: .releasing)
    await leader.close()
  }

  /// Who leads the store now, as `store_leader` says; nil when nobody has yet.
  public func leaderHolder() async -> (holder: String, term: Int64)? {
    try? await reader.answering(within: Self.readTimeout) { [self] connection in
      let rows = try await connection.query("SELECT holder, term FROM store_leader WHERE id = 1", logger: logger).collect()
      guard let (holder, term) = try rows.first?.decode((String, Int64).self) else { return nil }
      return (holder, term)
    }
  }

  /// Releases the leader's advisory lock on `connection`'s session.
  static func unlock(_ connection: PostgresConnection, logger: Logger) async throws {
    try await connection.query("SELECT pg_advisory_unlock(\(PostgresSchema.leaderLock))", logger: logger)
  }

  /// Takes the leader's advisory lock on `connection`'s session and returns the session's
  /// server process (`pg_backend_pid()`), or says who holds the lock.
  @discardableResult
  static func lead(_ connection: PostgresConnection, holder: String, location: String, logger: Logger) async throws -> Int32 {
    let lock = PostgresSchema.leaderLock
    let taken = try await connection.query("SELECT pg_try_advisory_lock(\(lock)), pg_backend_pid()", logger: logger).collect()
    guard let row = try taken.first?.decode((Bool, Int32).self), row.0 else {
      var who = "another daemon"
      let rows = try? await connection.query("SELECT holder, since::text FROM store_leader WHERE id = 1", logger: logger).collect()
      if let row = rows?.first, let (name, since) = try? row.decode((String, String).self) { who = "\(name) (leading since \(since))" }
      throw StoreError(
        .busy, path: location,
        "\(who) leads this store: one daemon writes a store at a time. Stop it first, or point --store at another database.")
    }
    return row.1
  }

  /// Checks that the tables, when there are any, are one of ours, of this root, a layout
  /// this build reads and (unless `allowingOtherSchema`) this schema; returns the schema
  /// the store recorded.
  private static func check(
    _ connection: PostgresConnection, root: String, schema: String, allowingOtherSchema: Bool, location: String, logger: Logger
  ) async throws -> String? {
    var info: [String: String] = [:]
    let exists = try await connection.query("SELECT to_regclass('store_info') IS NOT NULL", logger: logger).collect()
    if try exists.first?.decode(Bool.self) == true {
      for try await (key, value) in try await connection.query("SELECT key, value FROM store_info", logger: logger).decode((String, String).self) {
        info[key] = value
      }
      guard info["format"] != nil else {
        throw StoreError(
          .foreignDatabase, path: location,
          "the database has a table store_info that is not an Arbor store's: point --store at a database of its own.")
      }
    }
    if let format = info["format"].flatMap(Int.init), format > PostgresSchema.format {
      throw StoreError(
        .newerFormat, path: location,
        "the store has layout \(format), this build reads up to \(PostgresSchema.format): run a newer build, or point --store at another database.")
    }
    if let found = info["root"], found != root {
      throw StoreError(
        .otherRoot, path: location,
        "the store holds a tree of \(found), and this daemon hosts \(root): point --store at this daemon's own database.")
    }
    let recorded = info["schema"]
    if let found = recorded, found != schema, !allowingOtherSchema {
      throw StoreError(
        .otherSchema, path: location,
        "the store's state has schema \(found), and \(root) now has \(schema): give \(root) a `migrate` that upgrades the older records, or point --store at another database.")
    }
    return recorded
  }

  /// Creates the tables a new store lacks and records its layout and root. The leader's.
  private static func create(_ connection: PostgresConnection, root: String, schema: String, recorded: String?, logger: Logger) async throws {
    try await connection.withTransaction(logger: logger) { connection in
      for statement in PostgresSchema.create { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
      let format = String(PostgresSchema.format)
      try await connection.query(
        "INSERT INTO store_info (key, value) VALUES ('format', \(format)), ('root', \(root)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        logger: logger)
      if recorded == nil {
        try await connection.query("INSERT INTO store_info (key, value) VALUES ('schema', \(schema)) ON CONFLICT (key) DO NOTHING", logger: logger)
      }
      // Parts of a snapshot that a crash cut short.
      try await connection.query("DELETE FROM snapshot_parts WHERE revision NOT IN (SELECT revision FROM snapshots)", logger: logger)
    }
  }

  /// With the lock taken and the tables checked: creates what a new store lacks, raises the
  /// term and returns it (this daemon leads from now on), and sets the session's commits
  /// to `--fsync`'s.
  private static func takeLead(
    _ connection: PostgresConnection, root: String, schema: String, recorded: String?, holder: String, fsync: FsyncPolicy, logger: Logger
  ) async throws -> Int64 {
    try await create(connection, root: root, schema: schema, recorded: recorded, logger: logger)
    let term = try await raiseTerm(connection, holder: holder, logger: logger)
    if fsync == .off { try await connection.query("SET synchronous_commit = off", logger: logger) }
    return term
  }

  /// Raises the term (this daemon leads from now on) and returns it. The update waits for
  /// the journal transactions of the previous leader that hold the term's row.
  private static func raiseTerm(_ connection: PostgresConnection, holder: String, logger: Logger) async throws -> Int64 {
    let rows = try await connection.query(
      """
      INSERT INTO store_leader (id, term, holder, since) VALUES (1, 1, \(holder), now())
      ON CONFLICT (id) DO UPDATE SET term = store_leader.term + 1, holder = excluded.holder, since = excluded.since
      RETURNING term
      """, logger: logger
    ).collect()
    guard let term = try rows.first?.decode(Int64.self) else { throw StoreError(.io, path: "", "the term could not be raised") }
    return term
  }

  /// The leader's connection. After the connection was lost, a new one takes the lock
  /// again and continues in the same term only if nobody led meanwhile (the term is still
  /// this daemon's); else the store is ``StoreError/Kind/superseded``.
  func leaderConnection() async throws -> PostgresConnection {
    let term = try leadingTerm()
    return try await leader.connection { [self] connection in
      do {
        leaderBackend.store(try await Self.lead(connection, holder: holder, location: location, logger: logger), ordering: .releasing)
      } catch let error as StoreError where error.kind == .busy {
        throw StoreError(
          .superseded, path: location,
          "another daemon took the lead while the connection was lost (\(error.message)): this daemon writes nothing more")
      }
      let current = try await currentTerm(on: connection)
      guard current == term else { throw superseded(term: current) }
      if fsync == .off { try await connection.query("SET synchronous_commit = off", logger: logger) }
      logger.notice("reconnected to \(location) and leads it again in term \(term)")
    }
  }

  /// This daemon's term; a standby's writes stop here.
  private func leadingTerm() throws(StoreError) -> Int64 {
    let term = self.term
    guard term > 0 else {
      throw StoreError(.standby, path: location, "this daemon is a standby of the store: only the leader writes it")
    }
    return term
  }

  /// Checks, in a transaction, that this daemon's term is still the store's, and holds the
  /// term's row until the transaction ends.
  func checkTerm(on connection: PostgresConnection) async throws {
    let term = try leadingTerm()
    let current = try await currentTerm(on: connection, holdingIt: true)
    guard current == term else { throw superseded(term: current) }
  }

  /// The store's term now; with `holdingIt`, its row is held (`FOR SHARE`) until the
  /// transaction ends, so that no daemon raises it meanwhile.
  func currentTerm(on connection: PostgresConnection, holdingIt: Bool = false) async throws -> Int64? {
    let sql = "SELECT term FROM store_leader WHERE id = 1" + (holdingIt ? " FOR SHARE" : "")
    return try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).collect().first?.decode(Int64.self)
  }

  /// Why this daemon writes nothing more: the store's term is `current`, not its own.
  func superseded(term current: Int64?) -> StoreError {
    StoreError(
      .superseded, path: location,
      "another daemon leads this store now (term \(current ?? 0), this daemon's \(term)): this daemon writes nothing more")
  }

  /// Runs `body` and waits for it on the calling thread: for the calls of ``StateStore``
  /// that wait (from the journal writer's thread or NIO's thread pool, never an event loop).
  func waiting<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws(StoreError) -> T {
    let eventLoop = MultiThreadedEventLoopGroup.singleton.any()
    do {
      return try eventLoop.makeFutureWithTask(body).wait()
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// Reads how much room the store's tables take.
  func refreshSize() async {
    let size = try? await reader.answering(within: Self.readTimeout) { [logger] connection in
      let rows = try await connection.query(
        "SELECT COALESCE(SUM(pg_total_relation_size(c.oid)), 0)::bigint FROM pg_class c WHERE c.relname IN ('store_info', 'store_leader', 'snapshots', 'snapshot_parts', 'journal', 'undo_steps') AND c.relkind = 'r'",
        logger: logger
      ).collect()
      return try rows.first?.decode(Int64.self)
    }
    guard let size else { return }
    bytes.store(Int(size), ordering: .relaxed)
  }

  public func recordSchema(_ schema: String) async throws(StoreError) {
    do {
      try await snapshots.inTransaction(logger: logger, within: Self.writeTimeout) { [self] connection in
        try await checkTerm(on: connection)
        try await connection.query(
          "INSERT INTO store_info (key, value) VALUES ('schema', \(schema)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
          logger: logger)
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// Nothing to do: PostgreSQL's committed transactions are where a backup reads them.
  public func checkpoint() throws(StoreError) {}

  /// Ends the store's connections. The leader lets go of its lock first, so that the lead
  /// is free the moment this returns (a connection merely closed frees it once the server
  /// has noticed).
  public func close() async {
    replies.stop()
    await reader.close()
    await readings.close()
    await services.close()
    await leadChecks.close()
    await snapshots.close()
    if isLeading, leader.isOpen {
      _ = try? await leader.answering(within: Self.readTimeout) { [logger] connection in
        try await connection.query("SELECT pg_advisory_unlock_all()", logger: logger)
      }
    }
    await leader.close()
  }
}
