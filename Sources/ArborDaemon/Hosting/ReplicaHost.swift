import ArborLocking
import Arbor
import ArborJSON
import ArborRPC
import ArborStorage
import Foundation

/// A standby's tree: the leader's state as JSON, kept current by applying each journalled
/// revision's patch (``JournalFollower``), at the leader's revision numbers. It runs no
/// model, so nothing happens on a standby but what the leader did: its intents, restores
/// and undo are refused before they reach it (`org.arbor.NotLeader`).
final class ReplicaHost<Root: Model>: TreeHost {
  private struct Replica {
    var revision: UInt64
    var state: JSONValue
    var time: Date
  }

  private let replica: LockedState<Replica>

  init(record: SnapshotRecord) {
    replica = LockedState(Replica(revision: record.revision, state: record.state, time: record.createdAt))
  }

  var rootType: String { Root._$typeName }
  var schemaHash: String { Root.schemaHash }
  var revision: UInt64 { replica.withLock { $0.revision } }
  var generation: UInt64 { 0 }
  var modelTypes: [any Model.Type] { Root.modelTypesInTree }
  var undoSystem: ModelUndoSystem { ModelUndoSystem() }

  func state() throws -> (revision: UInt64, value: JSONValue) {
    replica.withLock { ($0.revision, $0.state) }
  }

  func state(at pointer: JSONPointer) throws -> (revision: UInt64, value: JSONValue?) {
    replica.withLock { ($0.revision, try? pointer.resolve(in: $0.state)) }
  }

  func snapshotRecord() throws -> SnapshotRecord {
    replica.withLock {
      SnapshotRecord(root: Root._$typeName, schema: Root.schemaHash, revision: $0.revision, createdAt: $0.time, state: $0.state)
    }
  }

  func snapshotRecordWithUndoHistory() throws -> (record: SnapshotRecord, undoHistory: UndoHistory?) {
    (try snapshotRecord(), nil)
  }

  func snapshotData() throws -> Data { Data(try snapshotRecord().encodedBytes()) }

  /// Applies the next journalled revision; false when it is not the next one, or its patch
  /// does not apply: the follower then reads the whole state again.
  func apply(_ entry: JournalEntry) -> Bool {
    replica.withLock { replica in
      guard entry.revision == replica.revision + 1 else { return false }
      // In place: the state is not copied for each revision. A patch that does not apply
      // leaves it to the follower's resync, which replaces it whole.
      guard (try? entry.patch.apply(to: &replica.state)) != nil else { return false }
      replica.revision = entry.revision
      replica.time = entry.time
      return true
    }
  }

  /// Takes the whole state of `record` (the follower fell behind the journal's window).
  func reset(to record: SnapshotRecord) {
    replica.withLock { $0 = Replica(revision: record.revision, state: record.state, time: record.createdAt) }
  }

  // A standby runs nothing: the request handler refuses writes before they get here.

  func restore(_ record: SnapshotRecord) throws -> UInt64 { throw Self.refusal }

  func callSynchronously(_ intent: String, on target: IntentTarget, parameters: JSONValue) throws -> IntentOutcome? {
    throw Self.refusal
  }

  func call(_ intent: String, on target: IntentTarget, parameters: JSONValue, wait: IntentWait) async throws -> IntentOutcome {
    throw Self.refusal
  }

  func listen(limit: Int, _ body: @escaping @Sendable (ChangeSetDelivery) -> Void) -> ChangeSetListener? { nil }

  func events(limit: Int) -> (generation: UInt64, events: EmittedEvents)? { nil }

  func committing(as intent: String, _ body: () -> Void) -> UInt64 { revision }

  private static var refusal: RPCError { RPCError.internalError("a standby runs no intent") }
}
