import Arbor
import ArborJSON
import Foundation

/// The hosted tree as the server sees it: whatever the root type, one face.
///
/// ``ModelHost`` is the implementation; the server, the watch hub and the methods talk
/// to this protocol only, so none of them is generic over the root.
protocol TreeHost: Sendable {
  /// The root type's name (`AppModel`).
  var rootType: String { get }
  /// The revision of the last committed change.
  var revision: UInt64 { get }
  /// Bumped each time the tree is replaced by a restore.
  var generation: UInt64 { get }
  /// The root's state and the revision it reflects, read at one revision.
  func state() throws -> (revision: UInt64, value: JSONValue)
  /// The value at `pointer` (nil when nothing is there) and the revision it reflects,
  /// without encoding more of the tree than the deepest model on the path.
  func state(at pointer: JSONPointer) throws -> (revision: UInt64, value: JSONValue?)
  /// The snapshot record of the tree.
  func snapshotRecord() throws -> SnapshotRecord
  /// A snapshot record and the kept undo history at the same revision (the journal rebases
  /// on both).
  func snapshotRecordWithUndoHistory() throws -> (record: SnapshotRecord, undoHistory: UndoHistory?)
  /// The hash of the root's state schema.
  var schemaHash: String { get }
  /// Replaces the tree by the one in `record`, anchored at a revision above every one
  /// seen so far; returns that revision.
  func restore(_ record: SnapshotRecord) throws -> UInt64
  /// Calls a synchronous intent without suspending; nil, having done nothing, when the
  /// intent is `async`.
  func callSynchronously(_ intent: String, on target: IntentTarget, parameters: JSONValue) throws -> IntentOutcome?
  /// Calls an intent; `.settled` also waits for the tasks it started.
  func call(_ intent: String, on target: IntentTarget, parameters: JSONValue, wait: IntentWait) async throws -> IntentOutcome
  /// Calls `body` with every change set of the current tree from now on (see
  /// `ModelAnchor.listen`); nil for a host that commits nothing itself (a standby's).
  func listen(limit: Int, _ body: @escaping @Sendable (ChangeSetDelivery) -> Void) -> ChangeSetListener?
  /// The events of the current tree, from now on, and its generation; nil for a host whose
  /// tree runs no model (a standby's).
  func events(limit: Int) -> (generation: UInt64, events: EmittedEvents)?
  /// Every model type the tree can hold, for `rpc.discover`.
  var modelTypes: [any Model.Type] { get }
  /// The current tree's undo system (`history.undo`, `history.redo`).
  var undoSystem: ModelUndoSystem { get }
  /// Runs `body` as the cause `intent` (recorded in the journal for its writes); the
  /// revision of its own newest commit.
  func committing(as intent: String, _ body: () -> Void) -> UInt64
  /// The encoded snapshot record.
  func snapshotData() throws -> Data
}
