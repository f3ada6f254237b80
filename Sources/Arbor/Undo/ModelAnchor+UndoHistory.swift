import Foundation

extension ModelAnchor {
  /// Keeps the tree's undo history as JSON, so that a host can journal it and undo and redo
  /// survive a restart: the tree's undo backend becomes a ``ModelUndoStack`` of `limit`
  /// steps starting from `history`, whose undo and redo run as transactions of the tree in
  /// the order of its commits, and every change set says what its commit did to the
  /// history (``ChangeSet/undoHistory``). An undo or redo is a revision even when no value
  /// changed.
  ///
  /// Returns false, and changes nothing, when the tree's undo backend is one of your own:
  /// only a ``ModelUndoStack`` is kept.
  ///
  /// ```swift
  /// let (_, anchor) = try TodoListModel.andAnchor(restoring: record)
  /// anchor.keepUndoHistory(restoring: keptHistory, limit: 100)
  /// ```
  @discardableResult
  public func keepUndoHistory(restoring history: UndoHistory = UndoHistory(), limit: Int) -> Bool {
    let system = model.node.undoSystem
    guard let recorder = system.recorder, system.backend == nil || system.backend is ModelUndoStack else { return false }
    let stack = ModelUndoStack(limit: limit)
    recorder.setBackend(stack)
    tree.lock.withLock { recorder.beginJournal(stack, restoring: history) }
    stack.notifyObservers()
    return true
  }

  /// The undo history kept by ``keepUndoHistory(restoring:limit:)`` as it is now; nil when
  /// it is not kept.
  ///
  /// ```swift
  /// print(anchor.undoHistory?.undo.count ?? 0)
  /// ```
  public var undoHistory: UndoHistory? {
    tree.lock.withLock { tree.fanOut.undo?.journalledHistory }
  }

  /// A snapshot record of the tree and its kept undo history at the same revision.
  ///
  /// ```swift
  /// let (record, history) = try anchor.snapshotRecordWithUndoHistory()
  /// ```
  public func snapshotRecordWithUndoHistory(createdAt: Date = Date()) throws -> (record: SnapshotRecord, undoHistory: UndoHistory?) {
    try Root.refuseUnlessRestorable()
    return try tree.lock.withLock { (try recordLocked(createdAt: createdAt), tree.fanOut.undo?.journalledHistory) }
  }
}
