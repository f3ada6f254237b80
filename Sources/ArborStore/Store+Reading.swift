import Arbor
import ArborJSON
import Foundation
import GRDB

extension Store {
  /// What a start begins from.
  public struct Recovery: Sendable {
    /// The newest state: the newest snapshot with every later journalled revision applied;
    /// nil for a new store.
    public var record: SnapshotRecord?
    /// The revision of the snapshot the state was rebuilt from.
    public var snapshotRevision: UInt64?
    /// How many journalled revisions were applied to it.
    public var replayed: Int
    /// The kept undo history, as of the newest state (empty for a new store).
    public var undoHistory = UndoHistory()
    /// Why a kept undo history was dropped, when it was (a step newer than the state, or
    /// one that does not match its checksum).
    public var undoHistoryDropped: String?
  }

  /// Rebuilds the newest state from the newest snapshot and the journal after it, applying
  /// the patches to the snapshot's JSON state (no intent runs). A gap in the journal, a
  /// patch that does not apply, a checksum that does not match or a record that cannot be
  /// read is ``StoreError/Kind/damaged``, with the revision named.
  public func recover() throws(StoreError) -> Recovery {
    let path = self.path
    do {
      return try pool.read { db in
        guard let base = try Int64.fetchOne(db, sql: "SELECT MAX(revision) FROM snapshots") else {
          if let first = try Int64.fetchOne(db, sql: "SELECT MIN(revision) FROM journal") {
            throw StoreError(
              .damaged, path: path,
              "the journal holds revision \(first) but there is no snapshot to apply it to: restore the file from a backup, or move it away to start fresh.")
          }
          return Recovery(record: nil, snapshotRevision: nil, replayed: 0)
        }
        let snapshot = try Self.readSnapshot(db, revision: UInt64(bitPattern: base), path: path)
        let (record, replayed) = try Self.replay(db, onto: snapshot, through: nil, path: path)
        var recovery = Recovery(record: record, snapshotRevision: snapshot.revision, replayed: replayed)
        (recovery.undoHistory, recovery.undoHistoryDropped) = try Self.readUndo(db, through: record.revision)
        return recovery
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The state at `revision`, rebuilt from the newest snapshot at or before it and the
  /// journal after that snapshot; nil when the revision is older than the oldest snapshot
  /// kept or newer than the newest revision written.
  ///
  /// ```swift
  /// if let record = try await store.state(at: 1_200) { print(record.state) }
  /// ```
  public func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? {
    let path = self.path
    do {
      return try await pool.read { db -> SnapshotRecord? in
        guard let base = try Int64.fetchOne(
          db, sql: "SELECT MAX(revision) FROM snapshots WHERE revision <= ?", arguments: [Int64(bitPattern: revision)])
        else { return nil }
        let snapshot = try Self.readSnapshot(db, revision: UInt64(bitPattern: base), path: path)
        let (record, _) = try Self.replay(db, onto: snapshot, through: revision, path: path)
        return record.revision == revision ? record : nil
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The journalled revisions after `since`, oldest first, at most `limit`.
  public func journal(since: UInt64, limit: Int) throws(StoreError) -> [JournalEntry] {
    let path = self.path
    do {
      return try pool.read { db in try Self.entries(db, since: since, limit: limit, path: path) }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The journalled revisions after `since`, oldest first, at most `limit`, read on one of
  /// GRDB's reader threads.
  ///
  /// ```swift
  /// for entry in try await store.journal(since: 100, limit: 50) { print(entry.revision, entry.intent ?? "-") }
  /// ```
  public func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry] {
    let path = self.path
    do {
      return try await pool.read { db in try Self.entries(db, since: since, limit: limit, path: path) }
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

  /// The revisions of the snapshots kept, oldest first. The oldest is the oldest revision
  /// whose state can be read back.
  public func snapshotRevisions() throws(StoreError) -> [UInt64] {
    do {
      return try pool.read { db in
        try Int64.fetchAll(db, sql: "SELECT revision FROM snapshots ORDER BY revision").map { UInt64(bitPattern: $0) }
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  // MARK: - Reading rows

  static func readSnapshot(_ db: Database, revision: UInt64, path: String) throws -> SnapshotRecord {
    let key = Int64(bitPattern: revision)
    func damaged(_ what: String) -> StoreError {
      StoreError(
        .damaged, path: path,
        "the snapshot of revision \(revision) \(what): restore the file from a backup, or move it away to start fresh.")
    }
    guard let row = try Row.fetchOne(db, sql: "SELECT size, parts, checksum FROM snapshots WHERE revision = ?", arguments: [key]) else {
      throw damaged("is missing")
    }
    let size: Int = row["size"]
    let parts: Int = row["parts"]
    let checksum: Int64 = row["checksum"]
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    var count = 0
    let cursor = try Row.fetchCursor(db, sql: "SELECT bytes FROM snapshot_parts WHERE revision = ? ORDER BY part", arguments: [key])
    while let part = try cursor.next() {
      let data: Data = part["bytes"]
      bytes.append(contentsOf: data)
      count += 1
    }
    guard count == parts, bytes.count == size else {
      throw damaged("is incomplete (\(count) of \(parts) parts, \(bytes.count) of \(size) bytes)")
    }
    guard Checksum.of(bytes) == checksum else { throw damaged("does not match its checksum (its bytes were changed)") }
    do {
      return try JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: bytes))
    } catch {
      throw damaged("cannot be read (\(error))")
    }
  }

  /// Applies the journal after `snapshot` to it, through `last` (or to the end).
  static func replay(_ db: Database, onto snapshot: SnapshotRecord, through last: UInt64?, path: String) throws -> (SnapshotRecord, Int) {
    let after = Int64(bitPattern: snapshot.revision)
    let through = last.map { Int64(bitPattern: $0) } ?? Int64.max
    let cursor = try Row.fetchCursor(
      db, sql: "SELECT revision, time, patch, checksum FROM journal WHERE revision > ? AND revision <= ? ORDER BY revision",
      arguments: [after, through])
    var record = snapshot
    var replayed = 0
    while let row = try cursor.next() {
      let next = UInt64(bitPattern: row["revision"] as Int64)
      guard next == record.revision + 1 else {
        throw StoreError(
          .damaged, path: path,
          "the journal jumps from revision \(record.revision) to \(next): revisions are missing. Restore the file from a backup, or move it away to start fresh.")
      }
      let patch = try decodePatch(row, revision: next, path: path)
      do {
        try patch.apply(to: &record.state)
      } catch {
        throw StoreError(
          .damaged, path: path,
          "revision \(next) of the journal cannot be applied (\(error)): restore the file from a backup, or move it away to start fresh.")
      }
      record.revision = next
      record.createdAt = Date(timeIntervalSince1970: row["time"])
      replayed += 1
    }
    return (record, replayed)
  }

  static func entries(_ db: Database, since: UInt64, limit: Int, path: String) throws -> [JournalEntry] {
    try Row.fetchAll(
      db, sql: "SELECT revision, time, intent, target, patch, checksum FROM journal WHERE revision > ? ORDER BY revision LIMIT ?",
      arguments: [Int64(bitPattern: since), max(0, limit)]
    ).map { row in
      let revision = UInt64(bitPattern: row["revision"] as Int64)
      return JournalEntry(
        revision: revision, time: Date(timeIntervalSince1970: row["time"]), intent: row["intent"], target: row["target"],
        patch: try decodePatch(row, revision: revision, path: path))
    }
  }

  private static func decodePatch(_ row: Row, revision: UInt64, path: String) throws -> JSONPatch {
    let text: String = row["patch"]
    let bytes = Array(text.utf8)
    guard Checksum.of(bytes) == row["checksum"] as Int64 else {
      throw StoreError(
        .damaged, path: path,
        "revision \(revision) of the journal does not match its checksum (its bytes were changed): restore the file from a backup, or move it away to start fresh.")
    }
    do {
      return try JSONPatch(json: JSONValue(parsing: bytes))
    } catch {
      throw StoreError(
        .damaged, path: path,
        "revision \(revision) of the journal cannot be read (\(error)): restore the file from a backup, or move it away to start fresh.")
    }
  }
}
