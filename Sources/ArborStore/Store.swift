import ArborJSON
import ArborStorage
import Foundation
import GRDB

#if canImport(Glibc)
  import Glibc
#endif

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
public final class Store: StateStore {
  /// The database file.
  public let path: String
  public let fsync: FsyncPolicy
  /// The schema hash the file recorded when it was opened; nil for a new store.
  public let recordedSchema: String?
  /// What the write-ahead log held when the store was opened: an incomplete last
  /// transaction (a write cut short by a crash) is dropped by SQLite, and reported here.
  public let writeAheadLog: WriteAheadLog.Inspection
  let pool: StorePool
  /// The device and inode of the database file when it was opened.
  let identity: FileIdentity?

  /// Snapshot records are written in parts of this size, one transaction each.
  static let partSize = 1 << 20

  private init(path: String, fsync: FsyncPolicy, recordedSchema: String?, writeAheadLog: WriteAheadLog.Inspection, pool: DatabasePool) {
    self.identity = FileIdentity(path: path)
    self.path = path
    self.fsync = fsync
    self.recordedSchema = recordedSchema
    self.writeAheadLog = writeAheadLog
    self.pool = StorePool(pool, path: path)
  }

  /// Opens the store at `path`, creating it when there is no file. A file that is not an
  /// SQLite database, a database that is not an Arbor store, a store of another root type
  /// or of a newer layout is refused with a ``StoreError`` that says what to do; so is a
  /// store of another schema, unless `allowingOtherSchema` (the caller then migrates the
  /// recovered record, see ``recordedSchema``).
  public static func open(
    at path: String, root: String, schema: String, fsync: FsyncPolicy, allowingOtherSchema: Bool = false
  ) throws(StoreError) -> Store {
    let inspection: WriteAheadLog.Inspection
    do {
      inspection = try WriteAheadLog.inspect(path + "-wal")
    } catch {
      throw StoreError(.io, path: path + "-wal", "the write-ahead log cannot be read: \(error)")
    }
    if case .damaged(let reason) = inspection {
      throw StoreError(
        .damaged, path: path + "-wal",
        "the write-ahead log is damaged (\(reason)); SQLite would silently drop the transactions after the damage. Restore the database and its -wal file from a backup, or move the -wal file away to start from the revisions the database file holds.")
    }
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
    let recorded = try prepare(pool, path: path, root: root, schema: schema, allowingOtherSchema: allowingOtherSchema)
    return Store(path: path, fsync: fsync, recordedSchema: recorded, writeAheadLog: inspection, pool: pool)
  }

  /// Creates the tables of a new store, or checks that the file is one of ours; returns
  /// the schema the file recorded.
  private static func prepare(_ pool: DatabasePool, path: String, root: String, schema: String, allowingOtherSchema: Bool) throws(StoreError) -> String? {
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
      var recorded: String?
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
        recorded = info["schema"]
        if let found = recorded, found != schema, !allowingOtherSchema {
          throw StoreError(
            .otherSchema, path: path,
            "the store's state has schema \(found), and \(root) now has \(schema): give \(root) a `migrate` that upgrades the older records, or move the file away to start fresh.")
        }
      }
      try StoreSchema.migrator.migrate(pool)
      try pool.write { db in
        for (key, value) in [("format", String(StoreSchema.format)), ("root", root)] {
          try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES (?, ?)", arguments: [key, value])
        }
        if recorded == nil {
          try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES ('schema', ?)", arguments: [schema])
        }
        // Parts of a snapshot that a crash cut short.
        try db.execute(sql: "DELETE FROM snapshot_parts WHERE revision NOT IN (SELECT revision FROM snapshots)")
      }
      return recorded
    } catch let error as StoreError {
      throw error
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Records `schema` as the schema of the store's state, once the state was migrated to it
  /// and a snapshot of the migrated state was saved.
  public func recordSchema(_ schema: String) async throws(StoreError) {
    do {
      try await pool.write { db in
        try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES ('schema', ?)", arguments: [schema])
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

  /// The database file's path.
  public var location: String { path }

  /// The sizes of the database file and its write-ahead log together.
  public var storedBytes: Int {
    let sizes = fileSizes
    return sizes.database + sizes.writeAheadLog
  }

  /// Closes the database's connections, on a thread of its own (closing waits for reads
  /// under way); nothing is read or written after. The last connection to close
  /// checkpoints the write-ahead log and holds the database's lock meanwhile: an upgrade's
  /// old process closes before it lets go of the state directory, so that the next
  /// process never finds the database locked.
  public func close() async {
    let pool = self.pool
    await StoreCall.run { try? pool.close() }
  }

  /// The sizes of the database file and its write-ahead log, in bytes.
  public var fileSizes: (database: Int, writeAheadLog: Int) {
    func size(_ path: String) -> Int {
      ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
    }
    return (size(path), size(path + "-wal"))
  }

  // MARK: - Errors

  /// Creates, writes and removes a file of one byte in `directory`: 0, or the errno that
  /// stopped it.
  static func probeWrite(in directory: String) -> Int32 {
    let probe = directory + "/.arbor-probe-\(getpid())"
    let descriptor = Glibc.open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return errno }
    defer {
      Glibc.close(descriptor)
      unlink(probe)
    }
    var byte: UInt8 = 0
    guard write(descriptor, &byte, 1) == 1 else { return errno }
    guard Glibc.fsync(descriptor) == 0 else { return errno }
    return 0
  }

  static func classify(_ error: any Error, path: String) -> StoreError {
    if let error = error as? StoreError { return error }
    if error is CancellationError { return StoreError(.cancelled, path: path, "cancelled") }
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
      case .SQLITE_FULL:
        return StoreError(
          .full, path: path,
          "the file system is full (\(error.message ?? "database or disk is full")): free space on it; writes resume once a write succeeds")
      case .SQLITE_READONLY:
        return StoreError(
          .readOnly, path: path,
          "the database cannot be written (\(error.message ?? "read-only")): is the file system mounted read-only, or were the file's permissions changed?")
      case .SQLITE_BUSY, .SQLITE_LOCKED:
        return StoreError(
          .busy, path: path,
          "another process holds the database's write lock (\(error.message ?? "database is locked")): only the daemon may write its store; stop the other process")
      case .SQLITE_IOERR:
        // SQLite does not say which I/O error: a write of one byte beside the file does.
        let directory = (path as NSString).deletingLastPathComponent
        switch probeWrite(in: directory.isEmpty ? "." : directory) {
        case EROFS:
          return StoreError(
            .readOnly, path: path,
            "the file system of \(directory) is read-only (SQLite: \(error.message ?? "disk I/O error")); a file system that remounted itself read-only after an error must be checked and mounted again, then the daemon restarted")
        case ENOSPC, EDQUOT:
          return StoreError(
            .full, path: path, "the file system is full (SQLite: \(error.message ?? "disk I/O error")): free space on it; writes resume once a write succeeds")
        default:
          return StoreError(.io, path: path, "SQLite failed: \(error.message ?? "\(error)") (code \(error.resultCode.rawValue))")
        }
      default:
        return StoreError(.io, path: path, "SQLite failed: \(error.message ?? "\(error)") (code \(error.resultCode.rawValue))")
      }
    }
    return StoreError(.io, path: path, "\(error)")
  }
}
