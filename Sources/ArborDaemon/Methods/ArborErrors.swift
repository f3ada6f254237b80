import ArborJSON
import ArborRPC

/// The codes of the daemon's own errors: outside the range JSON-RPC reserves, each with a
/// stable name in `error.data.name` that programs should match on.
public enum ArborErrorCode {
  public static let targetNotFound = 1001
  public static let intentNotFound = 1002
  public static let invalidParameter = 1003
  public static let intentFailed = 1004
  public static let permissionDenied = 1005
  public static let revisionCompacted = 1006
  public static let pathNotFound = 1007
  public static let snapshotRejected = 1008
  public static let subscriptionNotFound = 1009
  public static let lineTooLong = 1010
  public static let shuttingDown = 1011
  public static let notDurable = 1012
  public static let undoNotTracked = 1013
  public static let nothingToUndo = 1014
  public static let nothingToRedo = 1015
  public static let writesRefused = 1016
  public static let superseded = 1017
}

/// The daemon's errors, as the client sees them.
enum ArborErrors {
  static func pathNotFound(_ path: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.pathNotFound, name: "org.arbor.PathNotFound",
      message: "nothing in the state at '\(path)'", details: ["path": .string(path)])
  }

  static func permissionDenied(method: String, role: Role?, required: Role) -> RPCError {
    let who = role.map { "the \($0) role" } ?? "no role (the daemon does not know this user)"
    return RPCError(
      code: ArborErrorCode.permissionDenied, name: "org.arbor.PermissionDenied",
      message: "\(method) needs the \(required) role; this connection has \(who)",
      details: ["method": .string(method), "required": .string(required.description), "role": role.map { .string($0.description) } ?? .null])
  }

  static func subscriptionNotFound(_ subscription: Int) -> RPCError {
    RPCError(
      code: ArborErrorCode.subscriptionNotFound, name: "org.arbor.SubscriptionNotFound",
      message: "this connection has no watch \(subscription)", details: ["subscription": .int(Int64(subscription))])
  }

  static func lineTooLong(limit: Int) -> RPCError {
    RPCError(
      code: ArborErrorCode.lineTooLong, name: "org.arbor.LineTooLong",
      message: "a request line is longer than the limit of \(limit) bytes; the connection is closed",
      details: ["limit": .int(Int64(limit))])
  }

  static func shuttingDown() -> RPCError {
    RPCError(code: ArborErrorCode.shuttingDown, name: "org.arbor.ShuttingDown", message: "the daemon is stopping")
  }

  static func revisionCompacted(since: UInt64, oldest: UInt64, current: UInt64) -> RPCError {
    RPCError(
      code: ArborErrorCode.revisionCompacted, name: "org.arbor.RevisionCompacted",
      message: "revision \(since) is older than the history kept (from \(oldest)); read the state again with state.get, or ask from a newer revision",
      details: ["since": .int(Int64(since)), "oldest": .int(Int64(oldest)), "current": .int(Int64(current))])
  }

  static func notDurable(revision: UInt64, _ error: any Error) -> RPCError {
    RPCError(
      code: ArborErrorCode.notDurable, name: "org.arbor.NotDurable",
      message: "revision \(revision) was committed in memory but could not be written to the journal: \(error). The daemon now refuses writes and retries writing it every second; it is kept once the disk takes it, and lost if the daemon stops before (daemon.status says which)",
      details: ["revision": .int(Int64(revision)), "error": .string("\(error)")])
  }

  /// An intent whose writes went to a tree that `state.restore` replaced while it ran.
  static func superseded(intent: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.superseded, name: "org.arbor.Superseded",
      message: "the state was restored while \(intent) ran: its changes were discarded (the restored state does not hold them); call it again if it still applies",
      details: ["intent": .string(intent)])
  }

  /// A write (an intent, a restore, an undo or redo) refused before it ran: the journal
  /// cannot write, and a change that cannot be kept is not made.
  static func writesRefused(_ refusal: WriteRefusal) -> RPCError {
    RPCError(
      code: ArborErrorCode.writesRefused, name: "org.arbor.WritesRefused",
      message: "writes are refused, nothing was run: \(refusal.reason) (since revision \(refusal.heldFrom ?? refusal.writtenRevision), \(refusal.held) revisions held in memory). Reads and watches go on; writes resume by themselves once a write to the store succeeds (tried every second)",
      details: [
        "cause": .string(refusal.cause), "reason": .string(refusal.reason), "writtenRevision": .int(Int64(refusal.writtenRevision)),
        "held": .int(Int64(refusal.held)),
      ])
  }

  static func snapshotRejected(_ reason: String) -> RPCError {
    RPCError(
      code: ArborErrorCode.snapshotRejected, name: "org.arbor.SnapshotRejected",
      message: "the snapshot record was refused: \(reason)")
  }
}
