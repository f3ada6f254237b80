import ArborRecords
import ArborStorage
import Foundation
import NIOCore
import PostgresNIO

extension PostgresStore {
  /// Rebuilds the newest state from the newest snapshot and the journal after it, as the
  /// SQLite store does, with the same checks. Waits on the calling thread.
  public func recover() throws(StoreError) -> StoreRecovery {
    try waiting { [self] in
      // The whole read may take long, but a connection that says nothing (made or used
      // while the network was cut) must not hold it for that long: it answers a ping
      // within a read's deadline first, or is closed, and the caller tries again on a
      // new one. (A standby that lost the lead during a cut waited out the whole
      // recovery deadline on such a connection.)
      _ = try await readings.inTransaction(logger: logger, within: Self.readTimeout) { [logger] connection in
        try await connection.query("SELECT 1", logger: logger)
      }
      return try await readings.inTransaction(logger: logger, within: Self.recoveryTimeout) { [self] connection in
        // One view of the tables for the whole read.
        try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
        guard let base = try await newestSnapshot(atOrBefore: nil, on: connection) else {
          let rows = try await connection.query("SELECT MIN(revision) FROM journal", logger: logger).collect()
          if let first = try rows.first?.decode(Int64?.self) {
            throw StoredRecords.journalWithoutSnapshot(first: UInt64(bitPattern: first), at: place)
          }
          return StoreRecovery(record: nil, snapshotRevision: nil, replayed: 0)
        }
        let snapshot = try await readSnapshot(revision: base, on: connection)
        let replay = try await replay(onto: snapshot, through: nil, on: connection)
        var recovery = StoreRecovery(record: replay.record, snapshotRevision: snapshot.revision, replayed: replay.replayed)
        (recovery.undoHistory, recovery.undoHistoryDropped) = try await readUndo(on: connection, through: replay.record.revision)
        return recovery
      }
    }
  }

  public func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? {
    do {
      return try await readings.inTransaction(logger: logger, within: Self.readTimeout * 3) { [self] connection -> SnapshotRecord? in
        try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ", logger: logger)
        guard let base = try await newestSnapshot(atOrBefore: revision, on: connection) else { return nil }
        let snapshot = try await readSnapshot(revision: base, on: connection)
        let replay = try await replay(onto: snapshot, through: revision, on: connection)
        return replay.record.revision == revision ? replay.record : nil
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// How long a read may take before its connection is taken for cut.
  static let readTimeout = Duration.seconds(10)
  /// How long reading the whole state (a start, a standby's resync) may take.
  static let recoveryTimeout = Duration.seconds(120)

  public func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] {
    do {
      let after = Int64(bitPattern: since)
      let count = Int64(max(0, limit))
      return try await reader.answering(within: Self.readTimeout) { [self] connection in
        var entries: [JournalEntry] = []
        for try await (revision, time, intent, target, patch, checksum) in try await connection.query(
          "SELECT revision, time, intent, target, patch, checksum FROM journal WHERE revision > \(after) ORDER BY revision LIMIT \(count)",
          logger: logger
        ).decode((Int64, Double, String?, String?, String, Int64).self) {
          let number = UInt64(bitPattern: revision)
          entries.append(
            JournalEntry(
              revision: number, time: Date(timeIntervalSince1970: time), intent: intent, target: target,
              patch: try StoredRecords.patch(text: patch, checksum: checksum, revision: number, at: place)))
        }
        return entries
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  public func journalRange() throws(StoreError) -> ClosedRange<UInt64>? {
    try waiting { [self] in
      try await reader.answering(within: Self.readTimeout) { [logger] connection in
        let rows = try await connection.query("SELECT MIN(revision), MAX(revision) FROM journal", logger: logger).collect()
        guard let (low, high) = try rows.first?.decode((Int64?, Int64?).self), let low, let high else { return nil }
        return UInt64(bitPattern: low)...UInt64(bitPattern: high)
      }
    }
  }

  public func snapshotRevisions() throws(StoreError) -> [UInt64] {
    try waiting { [self] in
      try await reader.answering(within: Self.readTimeout) { [logger] connection in
        var revisions: [UInt64] = []
        for try await revision in try await connection.query("SELECT revision FROM snapshots ORDER BY revision", logger: logger).decode(Int64.self) {
          revisions.append(UInt64(bitPattern: revision))
        }
        return revisions
      }
    }
  }

  // MARK: - Reading rows

  private func newestSnapshot(atOrBefore revision: UInt64?, on connection: PostgresConnection) async throws -> UInt64? {
    let limit = Int64(bitPattern: revision ?? UInt64(Int64.max))
    let rows = try await connection.query("SELECT MAX(revision) FROM snapshots WHERE revision <= \(limit)", logger: logger).collect()
    return try rows.first?.decode(Int64?.self).map { UInt64(bitPattern: $0) }
  }

  private func readSnapshot(revision: UInt64, on connection: PostgresConnection) async throws -> SnapshotRecord {
    let key = Int64(bitPattern: revision)
    let rows = try await connection.query("SELECT size, parts, checksum FROM snapshots WHERE revision = \(key)", logger: logger).collect()
    guard let (size, parts, checksum) = try rows.first?.decode((Int64, Int64, Int64).self) else {
      throw StoredRecords.missingSnapshot(revision, at: place)
    }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(Int(size))
    var count = 0
    for try await var part in try await connection.query(
      "SELECT bytes FROM snapshot_parts WHERE revision = \(key) ORDER BY part", logger: logger
    ).decode(ByteBuffer.self) {
      bytes.append(contentsOf: part.readBytes(length: part.readableBytes) ?? [])
      count += 1
    }
    return try StoredRecords.snapshot(
      bytes: bytes, partsRead: count, size: Int(size), parts: Int(parts), checksum: checksum, revision: revision, at: place)
  }

  private func replay(onto snapshot: SnapshotRecord, through last: UInt64?, on connection: PostgresConnection) async throws -> StoredRecords.Replay {
    let after = Int64(bitPattern: snapshot.revision)
    let through = last.map { Int64(bitPattern: $0) } ?? Int64.max
    var replay = StoredRecords.Replay(onto: snapshot, at: place)
    for try await (revision, time, patch, checksum) in try await connection.query(
      "SELECT revision, time, patch, checksum FROM journal WHERE revision > \(after) AND revision <= \(through) ORDER BY revision",
      logger: logger
    ).decode((Int64, Double, String, Int64).self) {
      try replay.apply(revision: UInt64(bitPattern: revision), time: time, patch: patch, checksum: checksum)
    }
    return replay
  }
}
