import ArborJSON
import ArborRPC

/// The codes of the daemon's own errors, as ``ArborError`` (in `ArborRPC`, shared with the
/// clients) defines them: outside the range JSON-RPC reserves, each with a stable name in
/// `error.data.name` that programs should match on.
public enum ArborErrorCode {
  public static let targetNotFound = ArborError.targetNotFound.code
  public static let intentNotFound = ArborError.intentNotFound.code
  public static let invalidParameter = ArborError.invalidParameter.code
  public static let intentFailed = ArborError.intentFailed.code
  public static let permissionDenied = ArborError.permissionDenied.code
  public static let revisionCompacted = ArborError.revisionCompacted.code
  public static let pathNotFound = ArborError.pathNotFound.code
  public static let snapshotRejected = ArborError.snapshotRejected.code
  public static let subscriptionNotFound = ArborError.subscriptionNotFound.code
  public static let lineTooLong = ArborError.lineTooLong.code
  public static let shuttingDown = ArborError.shuttingDown.code
  public static let notDurable = ArborError.notDurable.code
  public static let undoNotTracked = ArborError.undoNotTracked.code
  public static let nothingToUndo = ArborError.nothingToUndo.code
  public static let nothingToRedo = ArborError.nothingToRedo.code
  public static let writesRefused = ArborError.writesRefused.code
  public static let superseded = ArborError.superseded.code
}

/// The daemon's errors, as the client sees them.
enum ArborErrors {
  static func pathNotFound(_ path: String) -> RPCError {
    // Cut before it is echoed twice (a 16 MiB path would make a 32 MiB reply to cut).
    let cut = ArborErrors.cut(path)
    let shown = cut ?? path
    var details: [String: JSONValue] = ["path": .string(shown)]
    if cut != nil { details["cut"] = true }
    return RPCError(.pathNotFound, message: "nothing in the state at '\(shown)'", details: details)
  }

  static func permissionDenied(method: String, role: Role?, required: Role) -> RPCError {
    let who = role.map { "the \($0) role" } ?? "no role (the daemon does not know this user)"
    return RPCError(
      code: ArborErrorCode.permissionDenied, name: ArborError.permissionDenied.name,
      message: "\(method) needs the \(required) role; this connection has \(who)",
      details: ["method": .string(method), "required": .string(required.description), "role": role.map { .string($0.description) } ?? .null])
  }

  static func subscriptionNotFound(_ subscription: Int) -> RPCError {
    RPCError(
      code: ArborErrorCode.subscriptionNotFound, name: ArborError.subscriptionNotFound.name,
      message: "this connection has no watch \(subscription)", details: ["subscription": .int(Int64(subscription))])
  }

  static func lineTooLong(limit: Int) -> RPCError {
    RPCError(
      code: ArborErrorCode.lineTooLong, name: ArborError.lineTooLong.name,
      message: "a request line is longer than the limit of \(limit) bytes; the connection is closed",
      details: ["limit": .int(Int64(limit))])
  }

  static func shuttingDown() -> RPCError {
    RPCError(code: ArborErrorCode.shuttingDown, name: ArborError.shuttingDown.name, message: "the daemon is stopping")
  }

  static func revisionCompacted(since: UInt64, oldest: UInt64, current: UInt64) -> RPCError {
    RPCError(
      code: ArborErrorCode.revisionCompacted, name: ArborError.revisionCompacted.name,
      message: "revision \(since) is older than the history kept (from \(oldest)); read the state again with state.get, or ask from a newer revision",
      details: ["since": .int(Int64(since)), "oldest": .int(Int64(oldest)), "current": .int(Int64(current))])
  }

  static func notDurable(revision: UInt64, _ error: any Error) -> RPCError {
    RPCError(
      code: ArborErrorCode.notDurable, name: ArborError.notDurable.name,
      message: "revision \(revision) was committed in memory but could not be written to the journal: \(error). The daemon now refuses writes and retries writing it every second; it is kept once the disk takes it, and lost if the daemon stops before (daemon.status says which)",
      details: ["revision": .int(Int64(revision)), "error": .string("\(error)")])
  }

  /// An intent whose writes went to a tree that `state.restore` replaced while it ran.
  static func superseded(intent: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.superseded, name: ArborError.superseded.name,
      message: "the state was restored while \(intent) ran: its changes were discarded (the restored state does not hold them); call it again if it still applies",
      details: ["intent": .string(intent)])
  }

  /// A write (an intent, a restore, an undo or redo) refused before it ran: the journal
  /// cannot write, and a change that cannot be kept is not made.
  static func writesRefused(_ refusal: WriteRefusal) -> RPCError {
    RPCError(
      code: ArborErrorCode.writesRefused, name: ArborError.writesRefused.name,
      message: "writes are refused, nothing was run: \(refusal.reason) (since revision \(refusal.heldFrom ?? refusal.writtenRevision), \(refusal.held) revisions held in memory). Reads and watches go on; writes resume by themselves once a write to the store succeeds (tried every second)",
      details: [
        "cause": .string(refusal.cause), "reason": .string(refusal.reason), "writtenRevision": .int(Int64(refusal.writtenRevision)),
        "held": .int(Int64(refusal.held)),
      ])
  }

  static func snapshotRejected(_ reason: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.snapshotRejected, name: ArborError.snapshotRejected.name,
      message: "the snapshot record was refused: \(reason)")
  }
}
