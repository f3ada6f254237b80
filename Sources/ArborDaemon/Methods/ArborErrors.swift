import ArborJSON
import ArborRPC
import ArborStorage

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
  public static let notLeader = ArborError.notLeader.code
  public static let notForwarded = ArborError.notForwarded.code
}

/// The daemon's errors, as the client sees them: the messages are `ArborRPC`'s
/// (`RPCError.pathNotFound(_:cut:)` and the rest); these add what only the daemon knows
/// (its roles, its refusals, cutting what it echoes).
enum ArborErrors {
  static func pathNotFound(_ path: String) -> RPCError {
    // Cut before it is echoed twice (a 16 MiB path would make a 32 MiB reply to cut).
    let cut = ArborErrors.cut(path)
    return .pathNotFound(cut ?? path, cut: cut != nil)
  }

  /// ``pathNotFound(_:)`` with what is there instead (``PathHint``), in the message and as
  /// `data.hint`: "nothing in the state at '/counters/9': /counters has 1 element (0)".
  static func pathNotFound(_ path: JSONPointer, in state: JSONValue) -> RPCError {
    var error = pathNotFound(path.description)
    error.addHint(from: path, in: state, unlessCut: ArborErrors.cut(path.description) != nil)
    return error
  }

  static func permissionDenied(method: String, role: Role?, required: Role) -> RPCError {
    .permissionDenied(method: method, required: required.description, role: role?.description)
  }

  static func subscriptionNotFound(_ subscription: Int) -> RPCError { .subscriptionNotFound(subscription) }

  static func lineTooLong(limit: Int) -> RPCError { .lineTooLong(limit: limit) }

  static func shuttingDown() -> RPCError { .shuttingDown() }

  static func revisionCompacted(since: UInt64, oldest: UInt64, current: UInt64) -> RPCError {
    .revisionCompacted(since: since, oldest: oldest, current: current)
  }

  static func notDurable(revision: UInt64, _ error: any Error) -> RPCError { .notDurable(revision: revision, error: "\(error)") }

  /// An intent whose writes went to a tree that `state.restore` replaced while it ran.
  static func superseded(intent: String) -> RPCError { .superseded(intent: intent) }

  /// A write (an intent, a restore, an undo or redo) refused before it ran: the journal
  /// cannot write, and a change that cannot be kept is not made.
  static func writesRefused(_ refusal: WriteRefusal) -> RPCError {
    .writesRefused(
      cause: refusal.cause, reason: refusal.reason, since: refusal.heldFrom ?? refusal.writtenRevision, held: refusal.held,
      writtenRevision: refusal.writtenRevision)
  }

  static func snapshotRejected(_ reason: String) -> RPCError { .snapshotRejected(reason) }

  /// An intent a standby could not forward to the leader: `queued` says whether it
  /// reached the store's queue (then the leader may still run it). The cause is the
  /// store's error kind (`unreachable` when PostgreSQL cannot be reached), or `timeout`
  /// for a queued intent whose reply did not come in time.
  static func notForwarded(_ error: StoreError, queued: Bool, store: String) -> RPCError {
    let cause = queued && error.kind == .io ? "timeout" : error.kind.rawValue
    return .notForwarded(cause: cause, reason: error.message, queued: queued, store: store)
  }
}

extension RPCError {
  /// Adds ``PathHint``'s sentence to the message (after a colon) and to `data` as `hint`; nothing for a path that was cut before it was echoed.
  mutating func addHint(from path: JSONPointer, in state: JSONValue, unlessCut cut: Bool = false) {
    guard !cut, let hint = PathHint.describe(missing: path, in: state) else { return }
    message += ": " + hint
    if case .object(var members)? = data {
      members["hint"] = .string(hint)
      data = .object(members)
    }
  }
}
