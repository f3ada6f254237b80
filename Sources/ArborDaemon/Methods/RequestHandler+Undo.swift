import Arbor
import ArborJSON
import ArborRPC

extension RequestHandler {
  /// `history.undo` / `history.redo`: one step of the tree's undo system, as one
  /// transaction. Runs on the event loop, like a synchronous intent.
  func undo(redo: Bool) throws(RPCError) -> UndoResult {
    let system = host.undoSystem
    guard system.isTracking else { throw ArborErrors.undoNotTracked(rootType: host.rootType) }
    if redo {
      guard system.canRedo else { throw ArborErrors.nothingToRedo() }
    } else {
      guard system.canUndo else { throw ArborErrors.nothingToUndo() }
    }
    // Journalled as caused by `history.undo` or `history.redo`, and replied with the
    // revision of this step's own commit.
    let revision = host.committing(as: (redo ? ArborMethod.historyRedo : .historyUndo).rawValue) {
      if redo { system.redo() } else { system.undo() }
    }
    logger.info("\(redo ? "redo" : "undo") to revision \(revision)")
    return UndoResult(revision: revision, canUndo: system.canUndo, canRedo: system.canRedo)
  }

  /// Whether the tree tracks undo and a step can be undone or redone, for `daemon.status`.
  var undoStatus: DaemonStatus.Undo? {
    let system = host.undoSystem
    guard system.isTracking else { return nil }
    return DaemonStatus.Undo(canUndo: system.canUndo, canRedo: system.canRedo)
  }
}

extension ArborErrors {
  static func undoNotTracked(rootType: String) -> RPCError { .undoNotTracked(rootType: rootType) }
  static func nothingToUndo() -> RPCError { .nothingToUndo() }
  static func nothingToRedo() -> RPCError { .nothingToRedo() }
}
