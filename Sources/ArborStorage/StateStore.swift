import ArborRecords
import Foundation

/// Where a daemon keeps its state: snapshots, and the journal of every revision after them.
///
/// This module holds the abstraction only; the backends are modules beside it, and keep
/// the same layout, checksums and meaning: `Store` (module `ArborStore`, one SQLite file,
/// the embedded default) and `PostgresStore` (module `ArborPostgres`, for daemons on
/// several machines). The calls that do not say `async` wait for the store on the calling
/// thread: make them from a thread of your own (the ``JournalWriter``'s, `NIOThreadPool`),
/// never from the cooperative pool or an event loop.
///
/// What a backend can do beyond keeping one daemon's state is asked of the store, never
/// found by casting it to a backend: ``leadership``, ``eventRelay`` and
/// ``intentForwarding`` are nil unless the backend has standbys; what it found amiss when
/// it opened is in the recovery's ``StoreRecovery/warnings``.
///
/// ```swift
/// let store: any StateStore = try Store.open(at: path, root: AppModel._$typeName, schema: AppModel.schemaHash, fsync: .always)
/// let recovery = try store.recover()
/// let writer = JournalWriter(store: store, after: recovery.record?.revision ?? 0)
/// if let shared = store.leadership, !shared.isLeading { print("a standby of \(store.location)") }
/// ```
public protocol StateStore: AnyObject, Sendable {
  /// Where the store is, for messages and `daemon.status`: a file path, or a database
  /// address without its password.
  var location: String { get }
  /// When a written revision counts as kept.
  var fsync: FsyncPolicy { get }
  /// The schema hash the store recorded when it was opened; nil for a new store.
  var recordedSchema: String? { get }

  /// Rebuilds the newest state from the newest snapshot and the journal after it (no intent
  /// runs). Damage is ``StoreError/Kind/damaged`` with the revision named. Waits.
  func recover() throws(StoreError) -> StoreRecovery
  /// Recovers as ``recover()`` does, but from `base`, a state the caller holds already (an
  /// upgrade's next daemon restored it while the old one served): only the journal after
  /// `base` is read and applied to it, and its entries are returned for the caller to
  /// replay into its models. Nil when the journal does not go on from `base` without a gap
  /// to the newest revision (a snapshot newer than the journal's end, a revision only a
  /// snapshot holds), or when the backend does not read this way. Waits.
  func recover(continuing base: SnapshotRecord) throws(StoreError) -> (recovery: StoreRecovery, entries: [JournalEntry])?
  /// Records `schema` as the schema of the stored state, once a snapshot of the state
  /// migrated to it was saved.
  func recordSchema(_ schema: String) async throws(StoreError)

  /// Appends committed revisions in one transaction, kept as ``fsync`` says when it
  /// returns. Waits.
  func appendNow(_ entries: [JournalEntry]) throws(StoreError)
  /// A write of nothing that matters, to learn whether writes succeed again. Waits.
  func probeWrite() throws(StoreError)
  /// Writes a snapshot record; it counts once it is complete. Then, with `windowStart`,
  /// drops the snapshots and journal no revision from `windowStart` on needs. With
  /// `undoHistory`, the kept undo history becomes it in the same transaction.
  func saveSnapshot(
    encoded bytes: [UInt8], revision: UInt64, createdAt: Date, keepingFrom windowStart: UInt64?, undoHistory: UndoHistory?
  ) async throws(StoreError)

  /// The state at `revision`, or nil when it is not kept (older than the oldest snapshot,
  /// newer than the newest revision).
  func state(at revision: UInt64) async throws(StoreError) -> SnapshotRecord?
  /// The journalled revisions after `since`, oldest first, at most `limit`.
  func journal(since: UInt64, limit: Int) async throws(StoreError) -> [JournalEntry]
  /// The oldest and newest journalled revisions; nil when the journal is empty. Waits.
  func journalRange() throws(StoreError) -> ClosedRange<UInt64>?
  /// The revisions of the snapshots kept, oldest first. Waits.
  func snapshotRevisions() throws(StoreError) -> [UInt64]

  /// Makes what is written whole where a backup would copy it (SQLite: the write-ahead
  /// log into the database file). Waits.
  func checkpoint() throws(StoreError)
  /// The bytes the store takes, as last known.
  var storedBytes: Int { get }
  /// Ends the store's connections; nothing is written after.
  func close() async

  // What a backend can do besides (StateStore+Capabilities.swift: nil by default).

  /// How several daemons share this store, one leading, the others its standbys; nil for
  /// a store one daemon owns (SQLite's).
  var leadership: (any StoreLeadership)? { get }
  /// How the leader hands its models' events to the standbys; nil when there are none.
  var eventRelay: (any StoreEventRelay)? { get }
  /// How a standby hands intents to the leader to run; nil when there are no standbys.
  var intentForwarding: (any StoreIntentForwarding)? { get }
}

extension StateStore {
  /// Writes a snapshot record (see ``saveSnapshot(encoded:revision:createdAt:keepingFrom:undoHistory:)``).
  ///
  /// ```swift
  /// try await store.saveSnapshot(try anchor.snapshotRecord(), keepingFrom: anchor.revision - 1_000)
  /// ```
  public func saveSnapshot(_ record: SnapshotRecord, keepingFrom windowStart: UInt64? = nil, undoHistory: UndoHistory? = nil) async throws(StoreError) {
    let bytes: [UInt8]
    do {
      bytes = try record.encodedBytes()
    } catch {
      throw StoreError(.io, path: location, "the snapshot record of revision \(record.revision) could not be encoded: \(error)")
    }
    try await saveSnapshot(
      encoded: bytes, revision: record.revision, createdAt: record.createdAt, keepingFrom: windowStart, undoHistory: undoHistory)
  }
}
