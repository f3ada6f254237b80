import ArborJSON
import ArborRecords
import ArborStorage
import Foundation
import GRDB

extension Store {
  /// What a start begins from (``StoreRecovery``).
  public typealias Recovery = StoreRecovery

  /// Where the rows are read from, and what to do about damage in them.
  var place: StoredRecords.Place {
    StoredRecords.Place(location: path, advice: "restore the file from a backup, or move it away to start fresh.")
  }

  /// Rebuilds the newest state from the newest snapshot and the journal after it, applying
  /// the patches to the snapshot's JSON state (no intent runs). A gap in the journal, a
  /// patch that does not apply, a checksum that does not match or a record that cannot be
  /// read is ``StoreError/Kind/damaged``, with the revision named. A torn tail of the
  /// write-ahead log that opening found (``writeAheadLog``) is in the recovery's
  /// ``StoreRecovery/warnings``.
  public func recover() throws(StoreError) -> Recovery {
    let (path, place) = (self.path, self.place)
    do {
      var recovery = try pool.read { db -> Recovery in
        guard let base = try Int64.fetchOne(db, sql: "SELECT MAX(revision) FROM snapshots") else {
          if let first = try Int64.fetchOne(db, sql: "SELECT MIN(revision) FROM journal") {
            throw StoredRecords.journalWithoutSnapshot(first: UInt64(bitPattern: first), at: place)
          }
          return Recovery(record: nil, snapshotRevision: nil, replayed: 0)
        }
        let snapshot = try Self.readSnapshot(db, revision: UInt64(bitPattern: base), at: place)
        let (record, replayed) = try Self.replay(db, onto: snapshot, through: nil, at: place)
        var recovery = Recovery(record: record, snapshotRevision: snapshot.revision, replayed: replayed)
        (recovery.undoHistory, recovery.undoHistoryDropped) = try Self.readUndo(db, through: record.revision)
        return recovery
      }
      recovery.warnings = openingWarnings(journalEndsAt: recovery.record?.revision ?? 0)
      return recovery
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// Recovers from `base` (a state the caller holds at its revision): the journal after it,
  /// applied to its JSON state in one read, with the entries; nil when the journal does not
  /// go on from `base` without a gap to the newest revision, or a snapshot is newer than
  /// the journal's end (see ``StateStore/recover(continuing:)``).
  ///
  /// ```swift
  /// if let (recovery, entries) = try store.recover(continuing: prepared) { for entry in entries { try anchor.replay(entry.patch, at: entry.revision) } }
  /// ```
  public func recover(continuing base: SnapshotRecord) throws(StoreError) -> (recovery: StoreRecovery, entries: [JournalEntry])? {
    let (path, place) = (self.path, self.place)
    do {
      let found = try pool.read { db -> (Recovery, [JournalEntry])? in
        let entries = try Self.entries(db, since: base.revision, limit: Int.max, at: place)
        var record = base
        for entry in entries {
          guard (try? record.apply(entry)) == true else { return nil }
        }
        guard let newest = try Int64.fetchOne(db, sql: "SELECT MAX(revision) FROM snapshots").map({ UInt64(bitPattern: $0) }),
          newest <= record.revision
        else { return nil }
        var recovery = Recovery(record: record, snapshotRevision: newest, replayed: Int(record.revision - newest))
        (recovery.undoHistory, recovery.undoHistoryDropped) = try Self.readUndo(db, through: record.revision)
        return (recovery, entries)
      }
      guard let found else { return nil }
      var recovery = found.0
      recovery.warnings = openingWarnings(journalEndsAt: recovery.record?.revision ?? 0)
      return (recovery, found.1)
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// What opening found amiss in the write-ahead log and SQLite dropped, for the log of the
  /// start that recovers the state: the journal then ends at `revision`.
  func openingWarnings(journalEndsAt revision: UInt64) -> [String] {
    guard case .tornTail(let frames) = writeAheadLog else { return [] }
    return [
      "the last transaction in \(path)-wal was incomplete (\(frames) pages; a write cut short) and was dropped: the journal ends at revision \(revision). Under --fsync always no reply had been sent for it."
    ]
  }

  /// The state at `revision`, rebuilt from the newest snapshot at or before it and the
  /// journal after that snapshot; nil when the revision is older than the oldest snapshot
  /// kept or newer than the newest revision written.
  ///
  /// ```swift
  /// if let record = try await store.state(at: 1_200) { print(record.state) }
  /// ```
  public func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord? {
    let (path, place) = (self.path, self.place)
    do {
      return try await pool.read { db -> SnapshotRecord? in
        guard let base = try Int64.fetchOne(
          db, sql: "SELECT MAX(revision) FROM snapshots WHERE revision <= ?", arguments: [Int64(bitPattern: revision)])
        else { return nil }
        let snapshot = try Self.readSnapshot(db, revision: UInt64(bitPattern: base), at: place)
        let (record, _) = try Self.replay(db, onto: snapshot, through: revision, at: place)
        return record.revision == revision ? record : nil
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }

  /// The journalled revisions after `since`, oldest first, at most `limit`.
  public func journal(since: UInt64, limit: Int) throws(StoreError) -> [JournalEntry] {
    let (path, place) = (self.path, self.place)
    do {
      return try pool.read { db in try Self.entries(db, since: since, limit: limit, at: place) }
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
    let (path, place) = (self.path, self.place)
    do {
      return try await pool.read { db in try Self.entries(db, since: since, limit: limit, at: place) }
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

  static func readSnapshot(_ db: Database, revision: UInt64, at place: StoredRecords.Place) throws -> SnapshotRecord {
    let key = Int64(bitPattern: revision)
    guard let row = try Row.fetchOne(db, sql: "SELECT size, parts, checksum FROM snapshots WHERE revision = ?", arguments: [key]) else {
      throw StoredRecords.missingSnapshot(revision, at: place)
    }
    let size: Int = row["size"]
    var bytes: [UInt8] = []
    bytes.reserveCapacity(size)
    var count = 0
    let cursor = try Row.fetchCursor(db, sql: "SELECT bytes FROM snapshot_parts WHERE revision = ? ORDER BY part", arguments: [key])
    while let part = try cursor.next() {
      let data: Data = part["bytes"]
      bytes.append(contentsOf: data)
      count += 1
    }
    return try StoredRecords.snapshot(
      bytes: bytes, partsRead: count, size: size, parts: row["parts"], checksum: row["checksum"], revision: revision, at: place)
  }

  /// Applies the journal after `snapshot` to it, through `last` (or to the end).
  static func replay(_ db: Database, onto snapshot: SnapshotRecord, through last: UInt64?, at place: StoredRecords.Place) throws -> (SnapshotRecord, Int) {
    let after = Int64(bitPattern: snapshot.revision)
    let through = last.map { Int64(bitPattern: $0) } ?? Int64.max
    let cursor = try Row.fetchCursor(
      db, sql: "SELECT revision, time, patch, checksum FROM journal WHERE revision > ? AND revision <= ? ORDER BY revision",
      arguments: [after, through])
    var replay = StoredRecords.Replay(onto: snapshot, at: place)
    while let row = try cursor.next() {
      try replay.apply(revision: UInt64(bitPattern: row["revision"] as Int64), time: row["time"], patch: row["patch"], checksum: row["checksum"])
    }
    return (replay.record, replay.replayed)
  }

  static func entries(_ db: Database, since: UInt64, limit: Int, at place: StoredRecords.Place) throws -> [JournalEntry] {
    try Row.fetchAll(
      db, sql: "SELECT revision, time, intent, target, patch, checksum FROM journal WHERE revision > ? ORDER BY revision LIMIT ?",
      arguments: [Int64(bitPattern: since), max(0, limit)]
    ).map { row in
      let revision = UInt64(bitPattern: row["revision"] as Int64)
      return JournalEntry(
        revision: revision, time: Date(timeIntervalSince1970: row["time"]), intent: row["intent"], target: row["target"],
        patch: try StoredRecords.patch(text: row["patch"], checksum: row["checksum"], revision: revision, at: place))
    }
  }
}
