import ArborJSON

/// Arbor's own errors, as the wire carries them: each a code outside the range JSON-RPC
/// reserves and a stable name in `error.data.name`, the one programs match on. The daemon
/// makes its errors from these, and clients match with ``RPCError/is(_:)``, so that no
/// name is spelled twice.
///
/// ```swift
/// do { try await client.call("state.get", ["path": "/nope"]) }
/// catch ArborClientError.daemon(let error) where error.is(.pathNotFound) { print("not there") }
/// ```
public struct ArborError: Sendable, Hashable, CustomStringConvertible {
  /// The error's code.
  public let code: Int
  /// The error's stable name, `org.arbor.…`.
  public let name: String

  init(_ code: Int, _ name: String) {
    self.code = code
    self.name = "org.arbor." + name
  }

  public var description: String { "\(name) (\(code))" }

  /// A method's or an intent's parameter is missing, unknown or of the wrong type (with
  /// the code of Invalid params, -32602, for the methods' own parameters).
  public static let invalidParameter = ArborError(1003, "InvalidParameter")
  public static let targetNotFound = ArborError(1001, "TargetNotFound")
  public static let intentNotFound = ArborError(1002, "IntentNotFound")
  public static let intentFailed = ArborError(1004, "IntentFailed")
  public static let permissionDenied = ArborError(1005, "PermissionDenied")
  public static let revisionCompacted = ArborError(1006, "RevisionCompacted")
  public static let pathNotFound = ArborError(1007, "PathNotFound")
  public static let snapshotRejected = ArborError(1008, "SnapshotRejected")
  public static let subscriptionNotFound = ArborError(1009, "SubscriptionNotFound")
  public static let lineTooLong = ArborError(1010, "LineTooLong")
  public static let shuttingDown = ArborError(1011, "ShuttingDown")
  public static let notDurable = ArborError(1012, "NotDurable")
  public static let undoNotTracked = ArborError(1013, "UndoNotTracked")
  public static let nothingToUndo = ArborError(1014, "NothingToUndo")
  public static let nothingToRedo = ArborError(1015, "NothingToRedo")
  public static let writesRefused = ArborError(1016, "WritesRefused")
  public static let superseded = ArborError(1017, "Superseded")
  /// A write sent to a standby daemon (several daemons on one PostgreSQL store): only the
  /// leader writes.
  public static let notLeader = ArborError(1018, "NotLeader")
  /// An intent a standby could not hand to the leader through the PostgreSQL store (it
  /// cannot be reached), or whose reply did not come back in time.
  public static let notForwarded = ArborError(1019, "NotForwarded")
  /// `daemon.upgrade` did not happen: the daemon cannot hand over (on a shared store), or
  /// the process it started did not get ready. It goes on serving.
  public static let upgradeFailed = ArborError(1020, "UpgradeFailed")

  /// Every error, in code order (`Docs/Protocol.md` lists the same).
  public static let all: [ArborError] = [
    .targetNotFound, .intentNotFound, .invalidParameter, .intentFailed, .permissionDenied, .revisionCompacted, .pathNotFound,
    .snapshotRejected, .subscriptionNotFound, .lineTooLong, .shuttingDown, .notDurable, .undoNotTracked, .nothingToUndo,
    .nothingToRedo, .writesRefused, .superseded, .notLeader, .notForwarded, .upgradeFailed,
  ]
}

extension RPCError {
  /// Whether this is `error` (by its stable name).
  public func `is`(_ error: ArborError) -> Bool { name == error.name }

  /// One of Arbor's errors with its message and details.
  ///
  /// ```swift
  /// RPCError(.pathNotFound, message: "nothing in the state at '/x'", details: ["path": "/x"])
  /// ```
  public init(_ error: ArborError, message: String, details: [String: JSONValue] = [:]) {
    self.init(code: error.code, name: error.name, message: message, details: details)
  }
}
