import Arbor
import ArborJSON
import Foundation
import GRDB

/// The daemon's durable state: one SQLite database (WAL mode) holding snapshot records and
/// the journal of every committed revision after them.
///
/// Opening checks what the file is (an SQLite database, an Arbor store, of this root type
/// and schema) and says what to do when it is not; ``recover()`` rebuilds the newest state
/// from the newest snapshot and the journal after it, without running any intent.
///
/// ```swift
/// let store = try Store.open(at: "/var/lib/app/arbor.sqlite", root: AppModel._$typeName, schema: AppModel.schemaHash, fsync: .always)
/// let recovery = try store.recover()
/// let (app, anchor) = try recovery.record.map { try AppModel.andAnchor(restoring: $0) } ?? AppModel().andAnchor()
/// try await store.append([JournalEntry(revision: 1, time: Date(), patch: changeSet.patch)])
/// ```
public final class Store: Sendable {
  /// The database file.
  public let path: String
  public let fsync: FsyncPolicy
  let pool: DatabasePool

  private init(path: String, fsync: FsyncPolicy, pool: DatabasePool) {
    self.path = path
    self.fsync = fsync
    self.pool = pool
  }

  /// Opens the store at `path`, creating it when there is no file. A file that is not an
  /// SQLite database, a database that is not an Arbor store, a store of another root type
  /// or schema, or of a newer layout, is refused with a ``StoreError`` that says what to do.
  public static func open(at path: String, root: String, schema: String, fsync: FsyncPolicy) throws(StoreError) -> Store {
    var configuration = Configuration()
    configuration.prepareDatabase { db in
      try db.execute(sql: "PRAGMA synchronous = \(fsync.synchronous)")
    }
    let pool: DatabasePool
    do {
      pool = try DatabasePool(path: path, configuration: configuration)
    } catch {
      throw classify(error, path: path)
    }
    let store = Store(path: path, fsync: fsync, pool: pool)
    try store.prepare(root: root, schema: schema)
    return store
  }

  /// Creates the tables of a new store, or checks that the file is one of ours.
  private func prepare(root: String, schema: String) throws(StoreError) {
    let path = self.path
    do {
      let tables = try pool.read { db in
        try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      }
      let isNew = tables.isEmpty
      if !isNew && !(tables.contains("store_info") && tables.contains("grdb_migrations")) {
        throw StoreError(
          .foreignDatabase, path: path,
          "this SQLite database is not an Arbor store (its tables: \(tables.sorted().joined(separator: ", "))). Point --state-dir at a directory of its own.")
      }
      if !isNew {
        let info = try pool.read { db in
          try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT key, value FROM store_info").map { ($0["key"] as String, $0["value"] as String) })
        }
        if let format = info["format"].flatMap(Int.init), format > StoreSchema.format {
          throw StoreError(
            .newerFormat, path: path,
            "the store has layout \(format), this build reads up to \(StoreSchema.format): run a newer build, or move the file away to start fresh.")
        }
        if let found = info["root"], found != root {
          throw StoreError(
            .otherRoot, path: path,
            "the store holds a tree of \(found), and this daemon hosts \(root): point --state-dir at this daemon's own directory, or move the file away to start fresh.")
        }
        if let found = info["schema"], found != schema {
          throw StoreError(
            .otherSchema, path: path,
            "the store's state has schema \(found), and \(root) now has \(schema): give \(root) a `migrate` that upgrades the older records, or move the file away to start fresh.")
        }
      }
      try StoreSchema.migrator.migrate(pool)
      try pool.write { db in
        for (key, value) in [("format", String(StoreSchema.format)), ("root", root), ("schema", schema)] {
          try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES (?, ?)", arguments: [key, value])
        }
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  // MARK: - Writing

  /// Appends committed revisions to the journal in one transaction. Runs on GRDB's writer
  /// queue, never on the caller's thread; returns once the transaction is committed (and,
  /// with `fsync: .always`, synced).
  public func append(_ entries: [JournalEntry]) async throws(StoreError) {
    guard !entries.isEmpty else { return }
    var rows: [(Int64, Double, String?, String?, String)] = []
    rows.reserveCapacity(entries.count)
    for entry in entries {
      let patch: String
      do {
        patch = try JSONValueEncoder().encode(entry.patch).jsonString
      } catch {
        throw StoreError(.io, path: path, "the patch of revision \(entry.revision) could not be encoded: \(error)")
      }
      rows.append((Int64(bitPattern: entry.revision), entry.time.timeIntervalSince1970, entry.intent, entry.target, patch))
    }
    let encoded = rows
    do {
      try await pool.write { db in
        let statement = try db.cachedStatement(sql: "INSERT INTO journal (revision, time, intent, target, patch) VALUES (?, ?, ?, ?, ?)")
        for row in encoded {
          try statement.execute(arguments: [row.0, row.1, row.2, row.3, row.4])
        }
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Writes a snapshot record, and drops the snapshots before it and the journal entries
  /// up to `trimThrough` (the revisions older than the history window).
  public func saveSnapshot(_ record: SnapshotRecord, trimThrough: UInt64? = nil) async throws(StoreError) {
    let bytes: Data
    do {
      bytes = try JSONValueEncoder().encode(record).jsonData()
    } catch {
      throw StoreError(.io, path: path, "the snapshot record could not be encoded: \(error)")
    }
    let revision = Int64(bitPattern: record.revision)
    let created = record.createdAt.timeIntervalSince1970
    let trim = trimThrough.map { Int64(bitPattern: min($0, record.revision)) }
    do {
      try await pool.write { db in
        try db.execute(
          sql: "INSERT OR REPLACE INTO snapshots (revision, created_at, record) VALUES (?, ?, ?)",
          arguments: [revision, created, bytes])
        try db.execute(sql: "DELETE FROM snapshots WHERE revision < ?", arguments: [revision])
        if let trim { try db.execute(sql: "DELETE FROM journal WHERE revision <= ?", arguments: [trim]) }
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  // MARK: - Reading

  /// What a start begins from.
  public struct Recovery: Sendable {
    /// The newest state: the newest snapshot with every later journalled revision applied;
    /// nil for a new store.
    public var record: SnapshotRecord?
    /// The revision of the snapshot the state was rebuilt from.
    public var snapshotRevision: UInt64?
    /// How many journalled revisions were applied to it.
    public var replayed: Int
  }

  /// Rebuilds the newest state from the newest snapshot and the journal after it, applying
  /// the patches to the snapshot's JSON state (no intent runs). A gap in the journal, a
  /// patch that does not apply or a record that cannot be read is ``StoreError/Kind/damaged``.
  public func recover() throws(StoreError) -> Recovery {
    let path = self.path
    do {
      return try pool.read { db in
        var record: SnapshotRecord?
        if let row = try Row.fetchOne(db, sql: "SELECT revision, record FROM snapshots ORDER BY revision DESC LIMIT 1") {
          let bytes: Data = row["record"]
          do {
            record = try JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: bytes))
          } catch {
            throw StoreError(
              .damaged, path: path,
              "the snapshot of revision \(row["revision"] as Int64) cannot be read (\(error)): restore the file from a backup, or move it away to start fresh.")
          }
        }
        let snapshotRevision = record?.revision
        let after = Int64(bitPattern: snapshotRevision ?? 0)
        let cursor = try Row.fetchCursor(db, sql: "SELECT revision, time, patch FROM journal WHERE revision > ? ORDER BY revision", arguments: [after])
        var replayed = 0
        var state = record?.state
        var revision = snapshotRevision ?? 0
        var last = record?.createdAt ?? Date()
        while let row = try cursor.next() {
          let next = UInt64(bitPattern: row["revision"] as Int64)
          guard next == revision + 1 else {
            throw StoreError(
              .damaged, path: path,
              "the journal jumps from revision \(revision) to \(next): revisions are missing. Restore the file from a backup, or move it away to start fresh.")
          }
          guard let current = state else {
            throw StoreError(
              .damaged, path: path,
              "the journal holds revision \(next) but there is no snapshot to apply it to: restore the file from a backup, or move it away to start fresh.")
          }
          do {
            let patch = try JSONValueDecoder().decode(JSONPatch.self, from: JSONValue(parsing: row["patch"] as String))
            state = try patch.apply(to: current)
          } catch {
            throw StoreError(
              .damaged, path: path,
              "revision \(next) of the journal cannot be applied (\(error)): restore the file from a backup, or move it away to start fresh.")
          }
          revision = next
          last = Date(timeIntervalSince1970: row["time"])
          replayed += 1
        }
        guard var rebuilt = record, let state else { return Recovery(record: nil, snapshotRevision: nil, replayed: 0) }
        rebuilt.state = state
        rebuilt.revision = revision
        rebuilt.createdAt = last
        return Recovery(record: rebuilt, snapshotRevision: snapshotRevision, replayed: replayed)
      }
    } catch let error as StoreError {
      throw error
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The journalled revisions after `since`, oldest first, at most `limit`.
  public func journal(since: UInt64, limit: Int) throws(StoreError) -> [JournalEntry] {
    do {
      return try pool.read { db in
        try Row.fetchAll(
          db, sql: "SELECT revision, time, intent, target, patch FROM journal WHERE revision > ? ORDER BY revision LIMIT ?",
          arguments: [Int64(bitPattern: since), limit]
        ).map { row in
          JournalEntry(
            revision: UInt64(bitPattern: row["revision"] as Int64), time: Date(timeIntervalSince1970: row["time"]),
            intent: row["intent"], target: row["target"],
            patch: try JSONValueDecoder().decode(JSONPatch.self, from: JSONValue(parsing: row["patch"] as String)))
        }
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The oldest and newest journalled revisions, nil when the journal is empty.
  public func journalRange() throws(StoreError) -> ClosedRange<UInt64>? {
    do {
      return try pool.read { db in
        guard let row = try Row.fetchOne(db, sql: "SELECT MIN(revision) AS low, MAX(revision) AS high FROM journal"),
          let low = row["low"] as Int64?, let high = row["high"] as Int64?
        else { return nil }
        return UInt64(bitPattern: low)...UInt64(bitPattern: high)
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Copies the write-ahead log into the database file and empties the log, so that the
  /// database file alone holds everything (before a backup by copying, for instance).
  public func checkpoint() throws(StoreError) {
    do {
      try pool.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  // MARK: - Errors

  static func classify(_ error: any Error, path: String) -> StoreError {
    if let error = error as? StoreError { return error }
    if let error = error as? DatabaseError {
      switch error.resultCode {
      case .SQLITE_NOTADB:
        return StoreError(
          .notADatabase, path: path,
          "the file is not an SQLite database (or its header is damaged): restore it from a backup, or move it away to start fresh.")
      case .SQLITE_CORRUPT:
        return StoreError(
          .damaged, path: path,
          "SQLite reports the database damaged (\(error.message ?? "corrupt")): restore it from a backup, or move it away to start fresh.")
      default:
        return StoreError(.io, path: path, "SQLite failed: \(error.message ?? "\(error)") (code \(error.resultCode.rawValue))")
      }
    }
    return StoreError(.io, path: path, "\(error)")
  }
}
