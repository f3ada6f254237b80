import ArborRecords

/// What a start begins from: the newest state a store holds, and how it was rebuilt.
///
/// ```swift
/// let recovery = try store.recover()
/// for warning in recovery.warnings { logger.warning("\(warning)") }
/// let (app, anchor) = try recovery.record.map { try AppModel.andAnchor(restoring: $0) } ?? AppModel().andAnchor()
/// ```
public struct StoreRecovery: Sendable {
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
  /// What the backend found amiss and repaired on its own when the store was opened, each
  /// a sentence for the log of the start that recovers (SQLite: the last transaction of
  /// the write-ahead log, cut short by a crash, dropped). Empty for most starts, and for
  /// backends that repair nothing.
  public var warnings: [String] = []

  public init(record: SnapshotRecord?, snapshotRevision: UInt64?, replayed: Int) {
    self.record = record
    self.snapshotRevision = snapshotRevision
    self.replayed = replayed
  }
}
