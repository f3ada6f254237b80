import Arbor
import ArborJSON
import ArborLocking
import Dependencies
import Foundation

/// Hosts a tree with a root of type `Root`: restores or builds it, anchors it, and
/// replaces it on `state.restore`.
final class ModelHost<Root: Model>: TreeHost {
  private struct Current {
    var anchor: ModelAnchor<Root>
    var generation: UInt64
  }

  private let current: LockedState<Current>
  /// Held while a restore swaps the trees (see ``restore(_:)``).
  private let restoring = LockedState(())
  private let dependencies: @Sendable (inout DependencyValues) -> Void
  /// How many undo steps a tree keeps (`--undo-depth`).
  let undoDepth: Int

  /// Hosts `anchor` (fresh or restored), keeping its undo history from `undoHistory` (the
  /// store's) with at most `undoDepth` steps; a tree restored later (`state.restore`) gets
  /// the user's dependency overrides and starts with no history.
  init(
    anchor: ModelAnchor<Root>, undoHistory: UndoHistory, undoDepth: Int, dependencies: @escaping @Sendable (inout DependencyValues) -> Void
  ) {
    anchor.keepUndoHistory(restoring: undoHistory, limit: undoDepth)
    self.current = LockedState(Current(anchor: anchor, generation: 0))
    self.undoDepth = undoDepth
    self.dependencies = dependencies
  }

  var anchor: ModelAnchor<Root> { current.withLock { $0.anchor } }

  var rootType: String { Root._$typeName }
  var schemaHash: String { Root.schemaHash }
  var revision: UInt64 { anchor.revision }
  var generation: UInt64 { current.withLock { $0.generation } }
  var undoSystem: ModelUndoSystem { anchor.model.node.undoSystem }

  func state() throws -> (revision: UInt64, value: JSONValue) { try anchor.state() }

  func state(at pointer: JSONPointer) throws -> (revision: UInt64, value: JSONValue?) { try anchor.state(at: pointer) }

  func snapshotRecord() throws -> SnapshotRecord { try anchor.snapshotRecord() }

  func snapshotRecordWithUndoHistory() throws -> (record: SnapshotRecord, undoHistory: UndoHistory?) {
    try anchor.snapshotRecordWithUndoHistory()
  }

  func snapshotData() throws -> Data { try anchor.snapshot() }

  /// The new tree is decoded first (the slow part, with no lock held); then the old tree
  /// is retired — nothing it commits from then on reaches anyone — and the new one takes
  /// the revision after the old one's last: no revision is named twice, whatever intents
  /// run meanwhile. An intent still running on the old tree finds its writes discarded.
  func restore(_ record: SnapshotRecord) throws -> UInt64 {
    let (_, restored) = try Root.andAnchor(restoring: record, revision: record.revision, dependencies)
    // The restored tree starts with no undo history: the journal's rebase on it empties the kept one.
    restored.keepUndoHistory(restoring: UndoHistory(), limit: undoDepth)
    // One restore at a time swaps trees: two restores on two event loops would otherwise
    // retire the same tree and name the same revision. (Lock order: this one, then the
    // old tree's, then `current`; nothing takes this one with another held.)
    return restoring.withLock {
      let old = anchor
      let last = old.retire()
      let revision = max(last, record.revision) + 1
      // The restore itself is that revision: the state the new tree holds now.
      restored.startRevisions(after: revision)
      current.withLock { current in
        current.anchor = restored
        current.generation += 1
      }
      // The old tree goes when its last in-flight intent lets go of it.
      return revision
    }
  }

  func callSynchronously(_ intent: String, on target: IntentTarget, parameters: JSONValue) throws -> IntentOutcome? {
    guard let outcome = try IntentDispatcher(anchor).callSynchronously(intent, on: target, parameters: parameters) else { return nil }
    return IntentOutcome(
      revision: outcome.revision, result: outcome.result, firstRevision: outcome.commits?.lowerBound, commits: outcome.commitCount,
      discarded: outcome.discarded)
  }

  func call(_ intent: String, on target: IntentTarget, parameters: JSONValue, wait: IntentWait) async throws -> IntentOutcome {
    let outcome = try await IntentDispatcher(anchor).call(intent, on: target, parameters: parameters, wait: wait)
    return IntentOutcome(
      revision: outcome.revision, result: outcome.result, firstRevision: outcome.commits?.lowerBound, commits: outcome.commitCount,
      discarded: outcome.discarded)
  }

  func listen(limit: Int, _ body: @escaping @Sendable (ChangeSetDelivery) -> Void) -> ChangeSetListener? {
    anchor.listen(limit: limit, body)
  }

  func events(limit: Int) -> (generation: UInt64, events: EmittedEvents)? {
    current.withLock { ($0.generation, $0.anchor.events(limit: limit)) }
  }

  var modelTypes: [any Model.Type] { Root.modelTypesInTree }

  func committing(as intent: String, _ body: () -> Void) -> UInt64 {
    anchor.committing(as: intent, body).revision
  }
}
