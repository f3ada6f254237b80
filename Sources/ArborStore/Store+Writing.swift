import ArborJSON
import ArborRecords
import ArborStorage
import Foundation
import GRDB
import GRDBSQLite

extension Store {
  /// Appends committed revisions to the journal in one transaction. Runs on GRDB's writer
  /// queue, never on the caller's thread; returns once the transaction is committed (and,
  /// with `fsync: .always`, synced).
  ///
  /// ```swift
  /// try await store.append([JournalEntry(revision: 8, time: Date(), patch: changeSet.patch)])
  /// ```
  public func append(_ entries: [JournalEntry]) async throws(StoreError) {
    let rows = JournalRow.rows(entries)
    do {
      try await pool.write { db in try Self.insert(rows, in: db) }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Appends committed revisions in one transaction on the calling thread, which waits
  /// until it is committed (and synced under `.always`): for a thread of the caller's own,
  /// never a thread of the cooperative pool or an event loop.
  public func appendNow(_ entries: [JournalEntry]) throws(StoreError) {
    try checkFileIdentity()
    let rows = JournalRow.rows(entries)
    do {
      try pool.write { db in try Self.insert(rows, in: db) }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Inserts journal rows with the one cached statement, bound and stepped through SQLite's
  /// C interface: the statement's arguments need no `StatementArguments` and its run none of
  /// GRDB's per-statement bookkeeping, which cost more than SQLite's own work for a row
  /// (`arbor-benchmarks instructions`). It runs inside GRDB's transaction; an error is
  /// GRDB's `DatabaseError`, as `execute` would throw.
  static func insert(_ rows: [JournalRow], in db: Database) throws {
    guard !rows.isEmpty else { return }
    let statement = try db.cachedStatement(
      sql: "INSERT INTO journal (revision, time, intent, target, patch, checksum) VALUES (?, ?, ?, ?, ?, ?)")
    let raw = statement.sqliteStatement
    for row in rows {
      sqlite3_reset(raw)
      let code = bindAndStep(raw, row)
      guard code == SQLITE_DONE else {
        let message = db.sqliteConnection.map { String(cString: sqlite3_errmsg($0)) }
        sqlite3_reset(raw)
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: message, sql: statement.sql)
      }
      if !row.undo.isEmpty { try applyUndo(row.undo, revision: row.revision, in: db) }
    }
    sqlite3_reset(raw)
  }

  /// Binds one row to the insert's six parameters and steps it; SQLite's result code.
  ///
  /// The texts are bound without a copy (`SQLITE_STATIC`): each is bound inside its own
  /// `withUTF8`, the step runs inside all three, and the bindings are cleared before the
  /// texts' storage may go, so the statement never holds a pointer past its step.
  private static func bindAndStep(_ raw: OpaquePointer, _ row: JournalRow) -> CInt {
    sqlite3_bind_int64(raw, 1, row.revision)
    sqlite3_bind_double(raw, 2, row.time)
    sqlite3_bind_int64(raw, 6, row.checksum)
    var intent = row.intent
    var target = row.target
    var patch = row.patch
    return withBoundText(raw, 3, &intent) {
      withBoundText(raw, 4, &target) {
        withBoundText(raw, 5, &patch) {
          defer { sqlite3_clear_bindings(raw) }
          return sqlite3_step(raw)
        }
      }
    }
  }

  /// Binds `text` (NULL when nil) to parameter `index` without a copy, and runs `body`
  /// while the binding is valid; a binding's error code instead of `body`'s.
  private static func withBoundText(_ raw: OpaquePointer, _ index: CInt, _ text: inout String?, _ body: () -> CInt) -> CInt {
    guard text != nil else {
      let code = sqlite3_bind_null(raw, index)
      return code == SQLITE_OK ? body() : code
    }
    return text!.withUTF8 { utf8 in
      // An empty string is text, not NULL: a zero-length text needs some pointer.
      let bytes = UnsafeRawPointer(utf8.baseAddress ?? UnsafePointer(bitPattern: 1)!).assumingMemoryBound(to: CChar.self)
      // No destructor (SQLITE_STATIC): SQLite uses the bytes where they are while bound.
      let code = sqlite3_bind_text(raw, index, bytes, CInt(utf8.count), nil)
      return code == SQLITE_OK ? body() : code
    }
  }

  private static func withBoundText(_ raw: OpaquePointer, _ index: CInt, _ text: inout String, _ body: () -> CInt) -> CInt {
    var optional: String? = text
    return withBoundText(raw, index, &optional, body)
  }

  /// Writes an encoded snapshot record in parts of a megabyte, each its own transaction, so
  /// that journal transactions go on between them; the snapshot counts once its last part
  /// and its row are committed. Then, when `windowStart` is given, drops what no revision
  /// from `windowStart` on needs: the snapshots before the newest one at or before it, and
  /// the journal up to that snapshot.
  ///
  /// With `undoHistory`, the kept undo history is replaced by it in the snapshot's last
  /// transaction: the journal rebases on a snapshot of the tree and its history together.
  public func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    let key = Int64(bitPattern: revision)
    let checksum = Checksum.of(bytes)
    let partSize = Self.partSize
    let parts = max(1, (bytes.count + partSize - 1) / partSize)
    let synchronous = fsync.synchronous
    do {
      for part in 0..<parts {
        let slice = Data(bytes[(part * partSize)..<min(bytes.count, (part + 1) * partSize)])
        try await pool.writeWithoutTransaction { db in
          // The parts need no sync of their own: the commit of the snapshot's row syncs
          // the log they are in.
          try db.execute(sql: "PRAGMA synchronous = OFF")
          defer { try? db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
          try db.inTransaction {
            if part == 0 {
              try db.execute(sql: "DELETE FROM snapshots WHERE revision = ?", arguments: [key])
              try db.execute(sql: "DELETE FROM snapshot_parts WHERE revision = ?", arguments: [key])
            }
            try db.execute(
              sql: "INSERT INTO snapshot_parts (revision, part, bytes) VALUES (?, ?, ?)", arguments: [key, part, slice])
            return .commit
          }
        }
      }
      let created = createdAt.timeIntervalSince1970
      let size = bytes.count
      try await pool.write { db in
        try db.execute(
          sql: "INSERT INTO snapshots (revision, created_at, size, parts, checksum) VALUES (?, ?, ?, ?, ?)",
          arguments: [key, created, size, parts, checksum])
        if let undoHistory { try Self.replaceUndo(with: undoHistory, revision: key, in: db) }
        guard let windowStart,
          let base = try Int64.fetchOne(db, sql: "SELECT MAX(revision) FROM snapshots WHERE revision <= ?", arguments: [Int64(bitPattern: windowStart)])
        else { return }
        try db.execute(sql: "DELETE FROM snapshots WHERE revision < ?", arguments: [base])
        try db.execute(sql: "DELETE FROM snapshot_parts WHERE revision < ?", arguments: [base])
        try db.execute(sql: "DELETE FROM journal WHERE revision <= ?", arguments: [base])
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }
}
