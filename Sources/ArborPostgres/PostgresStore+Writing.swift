import ArborRecords
import ArborStorage
import Foundation
import NIOCore
import PostgresNIO

extension PostgresStore {
  /// Rows per `INSERT` statement (seven values each, under PostgreSQL's 65,535).
  static let rowsPerStatement = 1_000
  /// The channel of `NOTIFY` on which the leader announces each journal transaction's
  /// newest revision.
  static let journalChannel = "arbor_journal"
  /// Snapshot records are written in parts of this size, one transaction each.
  static let partSize = 1 << 20

  /// Appends committed revisions in one transaction on the leader's session, after checking
  /// the term. Waits on the calling thread until PostgreSQL committed it (under
  /// `--fsync always`, as its `synchronous_commit` says).
  public func appendNow(_ entries: [JournalEntry]) throws(StoreError) {
    let rows = JournalRow.rows(entries)
    guard !rows.isEmpty else { return }
    try waiting { [self] in
      let connection = try await leaderConnection()
      // The writer's thread waits for this: a server that never answers (a restart that
      // left the connection half-closed, a cut link) must not hold it, and every reply
      // waiting for the disk behind it, for ever. After `writeTimeout` the connection is
      // closed and the write fails; the journal holds the revisions and retries them on a
      // new connection (where the term is checked again).
      try await PostgresSession.answer(connection, within: Self.writeTimeout, location: location) { [self] connection in
        if rows.count <= Self.rowsPerStatement && rows.allSatisfy({ $0.undo.isEmpty }) {
          // Almost every transaction: one statement, one round trip.
          try await appendInOneStatement(rows, on: connection)
          return
        }
        try await connection.withTransaction(logger: logger) { connection in
          try await checkTerm(on: connection)
          try await insert(rows, on: connection)
          // Delivered to the standbys when the transaction commits.
          let last = String(rows[rows.count - 1].revision)
          try await connection.query("SELECT pg_notify(\(Self.journalChannel), \(last))", logger: logger)
        }
      }
    }
  }

  /// How long a journal write may wait for the server before its connection is given up.
  static let writeTimeout = Duration.seconds(30)

  /// Appends rows that move no undo history in one statement, its own transaction: the
  /// term is checked (`FOR SHARE`, held to the commit) in the same statement that inserts
  /// the rows and announces them, so a transaction is one round trip to the server.
  private func appendInOneStatement(_ rows: [JournalRow], on connection: PostgresConnection) async throws {
    var bindings = PostgresBindings(capacity: 1 + 6 * rows.count)
    bindings.append(term)
    var values: [String] = []
    values.reserveCapacity(rows.count)
    for row in rows {
      let first = bindings.count
      values.append("($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4), $\(first + 5), $\(first + 6))")
      bindings.append(row.revision)
      bindings.append(row.time)
      bindings.append(row.intent)
      bindings.append(row.target)
      bindings.append(row.patch)
      bindings.append(row.checksum)
    }
    let sql = """
      WITH leader AS (SELECT term FROM store_leader WHERE id = 1 AND term = $1 FOR SHARE),
      written AS (
        INSERT INTO journal (revision, term, time, intent, target, patch, checksum)
        SELECT v.revision, leader.term, v.time, v.intent, v.target, v.patch, v.checksum
        FROM leader, (VALUES \(values.joined(separator: ", "))) AS v (revision, time, intent, target, patch, checksum)
        RETURNING revision)
      SELECT count(*)::bigint, pg_notify('\(Self.journalChannel)', coalesce(max(revision), 0)::text) IS NULL FROM written
      """
    let result = try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).collect()
    let decoded = try result.first?.decode((Int64, Bool).self)
    let written = decoded?.0 ?? 0
    guard written == Int64(rows.count) else {
      // The term is not this daemon's any more: say whose it is.
      throw superseded(term: try await currentTerm(on: connection))
    }
  }

  /// Inserts journal rows, many per statement, and applies their undo history changes.
  private func insert(_ rows: [JournalRow], on connection: PostgresConnection) async throws {
    var start = 0
    while start < rows.count {
      var end = start
      var bindings = PostgresBindings(capacity: 7 * min(Self.rowsPerStatement, rows.count - start))
      var sql = "INSERT INTO journal (revision, term, time, intent, target, patch, checksum) VALUES "
      while end < rows.count && end - start < Self.rowsPerStatement {
        let row = rows[end]
        let first = bindings.count
        if end > start { sql += ", " }
        sql += "($\(first + 1), $\(first + 2), $\(first + 3), $\(first + 4), $\(first + 5), $\(first + 6), $\(first + 7))"
        bindings.append(row.revision)
        bindings.append(term)
        bindings.append(row.time)
        bindings.append(row.intent)
        bindings.append(row.target)
        bindings.append(row.patch)
        bindings.append(row.checksum)
        end += 1
        // A row that moves the undo history ends its statement: the history follows it.
        if !row.undo.isEmpty { break }
      }
      try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
      if let last = rows[start..<end].last, !last.undo.isEmpty {
        try await applyUndo(last.undo, revision: last.revision, on: connection)
      }
      start = end
    }
  }

  /// Writes a probe row, to learn whether writes succeed again (after a lost connection,
  /// a full disk).
  public func probeWrite() throws(StoreError) {
    try waiting { [self] in
      let connection = try await leaderConnection()
      try await PostgresSession.answer(connection, within: Self.writeTimeout, location: location) { [self] connection in
        try await connection.withTransaction(logger: logger) { connection in
          try await checkTerm(on: connection)
          let now = "\(Date().timeIntervalSince1970)"
          try await connection.query(
            "INSERT INTO store_info (key, value) VALUES ('probe', \(now)) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            logger: logger)
        }
      }
    }
  }

  /// Writes an encoded snapshot record in parts of a megabyte, each its own transaction,
  /// then its row, every transaction after checking the term; a revision that has a
  /// complete snapshot keeps it. Then, with `windowStart`, drops what no revision from
  /// `windowStart` on needs; with `undoHistory`, the kept history becomes it.
  public func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError) {
    let key = Int64(bitPattern: revision)
    let checksum = Checksum.of(bytes)
    let parts = max(1, (bytes.count + Self.partSize - 1) / Self.partSize)
    do {
      // A complete snapshot of this revision with the same bytes is kept as it is. One with
      // other bytes (the state migrated at a start) is replaced in the row's transaction,
      // all at once: a complete snapshot's parts are never deleted on their own, so no
      // crash in between can leave its row without them. Every transaction has a deadline:
      // a connection that says nothing is closed rather than hold the save.
      let found = try await snapshots.inTransaction(logger: logger, within: Self.readTimeout) { [logger] connection in
        let existing = try await connection.query("SELECT checksum FROM snapshots WHERE revision = \(key)", logger: logger).collect()
        return try existing.first?.decode(Int64.self)
      }
      let complete = found != nil
      let replaces = found != nil && found != checksum
      for part in 0..<parts where !complete {
        let slice = ByteBuffer(bytes: bytes[(part * Self.partSize)..<min(bytes.count, (part + 1) * Self.partSize)])
        let number = Int64(part)
        try await snapshots.inTransaction(logger: logger, within: Self.writeTimeout) { [self] connection in
          // Fenced like the journal: a leader whose term was raised writes no part.
          try await checkTerm(on: connection)
          // The parts need no wait for the disk of their own: the row's commit comes after.
          try await connection.query("SET LOCAL synchronous_commit = off", logger: logger)
          if part == 0 {
            try await connection.query(
              "DELETE FROM snapshot_parts WHERE revision = \(key) AND NOT EXISTS (SELECT 1 FROM snapshots WHERE revision = \(key))",
              logger: logger)
          }
          try await connection.query(
            "INSERT INTO snapshot_parts (revision, part, bytes) VALUES (\(key), \(number), \(slice))", logger: logger)
        }
      }
      let created = createdAt.timeIntervalSince1970
      let size = Int64(bytes.count)
      let partCount = Int64(parts)
      try await snapshots.inTransaction(logger: logger, within: Self.recoveryTimeout) { [self] connection in
        try await checkTerm(on: connection)
        if replaces {
          try await connection.query("DELETE FROM snapshots WHERE revision = \(key)", logger: logger)
          try await connection.query("DELETE FROM snapshot_parts WHERE revision = \(key)", logger: logger)
          for part in 0..<parts {
            let slice = ByteBuffer(bytes: bytes[(part * Self.partSize)..<min(bytes.count, (part + 1) * Self.partSize)])
            let number = Int64(part)
            try await connection.query(
              "INSERT INTO snapshot_parts (revision, part, bytes) VALUES (\(key), \(number), \(slice))", logger: logger)
          }
        }
        if !complete || replaces {
          try await connection.query(
            "INSERT INTO snapshots (revision, created_at, size, parts, checksum) VALUES (\(key), \(created), \(size), \(partCount), \(checksum))",
            logger: logger)
        }
        if let undoHistory { try await replaceUndo(with: undoHistory, revision: key, on: connection) }
        guard let windowStart else { return }
        let start = Int64(bitPattern: windowStart)
        let rows = try await connection.query("SELECT MAX(revision) FROM snapshots WHERE revision <= \(start)", logger: logger).collect()
        guard let base = try rows.first?.decode(Int64?.self) else { return }
        try await connection.query("DELETE FROM snapshots WHERE revision < \(base)", logger: logger)
        try await connection.query("DELETE FROM snapshot_parts WHERE revision < \(base)", logger: logger)
        try await connection.query("DELETE FROM journal WHERE revision <= \(base)", logger: logger)
      }
    } catch {
      throw Self.classify(error, location: location)
    }
    await refreshSize()
  }
}
