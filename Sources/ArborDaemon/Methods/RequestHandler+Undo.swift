import Arbor
import ArborJSON
import ArborRPC

extension RequestHandler {
  /// `history.undo` / `history.redo`: one step of the tree's undo system, as one
  /// transaction. Runs on the event loop, like a synchronous intent.
  func undo(redo: Bool) throws(RPCError) -> JSONValue {
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
    return ["revision": .int(Int64(revision)), "canUndo": .bool(system.canUndo), "canRedo": .bool(system.canRedo)]
  }

  /// Whether the tree tracks undo and a step can be undone or redone, for `daemon.status`.
  var undoStatus: JSONValue {
    let system = host.undoSystem
    guard system.isTracking else { return .null }
    return ["canUndo": .bool(system.canUndo), "canRedo": .bool(system.canRedo)]
  }
}

extension ArborErrors {
  static func undoNotTracked(rootType: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.undoNotTracked, name: ArborError.undoNotTracked.name,
      message: "no model of the tree tracks undo: call node.trackUndo() in \(rootType).onActivate()",
      details: ["root": .string(rootType)])
  }

  static func nothingToUndo() -> RPCError {
    RPCError(code: ArborErrorCode.nothingToUndo, name: ArborError.nothingToUndo.name, message: "there is no step to undo")
  }

  static func nothingToRedo() -> RPCError {
    RPCError(code: ArborErrorCode.nothingToRedo, name: ArborError.nothingToRedo.name, message: "there is no step to redo")
  }
}
