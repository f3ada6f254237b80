/// What one committed transaction modified: its property changes, the values it wrote to
/// models' local, environment and preference storage, and the models whose parents
/// changed. Delivered to modification taps (testers, `observeModifications`) once the
/// transaction has committed, on the committing thread, after the tree's lock is released.
package struct ModificationBatch: Sendable {
  /// The revision after the transaction (unchanged when only storage or parents changed).
  package let revision: UInt64
  /// The property changes, as in the transaction's change set.
  package let changes: [Change]
  /// The storage writes, in order.
  package let storage: [StorageModification]
  /// The models that gained or lost a parent, each once, in order.
  var parentChanges: [AnyModelContext]
  /// The states of the written models before and after, while states are captured
  /// (``ModelAnchor/captureStates()``) and the transaction changed state.
  package var states: RecordedStates? = nil
  /// Who committed it, while a stream of modifications needs to know.
  var origin: ModificationOrigin? = nil

  var isEmpty: Bool { changes.isEmpty && storage.isEmpty && parentChanges.isEmpty }
}

/// One write to a model's storage (`node.local`, `node.environment`, `node.preference`,
/// `node.context`).
package struct StorageModification: Sendable {
  let context: AnyModelContext
  /// The model written to.
  package let modelID: ModelID
  /// Its type's name.
  package let modelType: String
  /// The value written; nil when the model's value was removed.
  package let value: (any Sendable)?

  /// `local.isEditing`: the same name a recorded read of the key has.
  package let name: String
  /// Which storage was written.
  package let kind: StorageKind
}

/// A modification noted while a transaction is open. Lock held.
enum ModificationRecord {
  case storage(AnyModelContext, StorageKey, (any Sendable)?)
  case parents(AnyModelContext)
}

extension CommitFanOut {
  /// Adds a synchronous listener of every committed modification; see ``ModificationBatch``.
  /// Takes the lock.
  func tapModifications(notingOrigins: Bool = false, _ body: @escaping @Sendable (ModificationBatch) -> Void) -> ModificationTap {
    let id = addModificationTap(notingOrigins: notingOrigins, body)
    return ModificationTap { [weak self] in self?.removeModificationTap(id, notingOrigins: notingOrigins) }
  }

  /// The batch of the transaction being committed, if anyone listens and it modified
  /// anything; clears the pending records. Lock held.
  func takeModifications(changes: [Change], revision: UInt64, origin: ModificationOrigin? = nil) -> ModificationBatch? {
    guard recordsModifications, !changes.isEmpty || !pendingModifications.isEmpty else {
      pendingModifications = []
      capturedBefore = [:]
      return nil
    }
    var storage: [StorageModification] = []
    var parents: [AnyModelContext] = []
    var seenParents: Set<ObjectIdentifier> = []
    for record in pendingModifications {
      switch record {
      case .storage(let context, let key, let value):
        storage.append(
          StorageModification(
            context: context, modelID: context.id, modelType: context.typeName, value: value, name: key.name, kind: key.kind))
      case .parents(let context):
        if seenParents.insert(ObjectIdentifier(context)).inserted { parents.append(context) }
      }
    }
    pendingModifications = []
    return ModificationBatch(
      revision: revision, changes: changes, storage: storage, parentChanges: parents, states: takeCapturedStates(changed: !changes.isEmpty),
      origin: origin)
  }

  /// Notes the state of `context` before the first write of the transaction to it. Lock held.
  func captureStateBefore(_ context: AnyModelContext) {
    guard context.lifetime == .anchored else { return }
    let key = RecordedStates.Key(context: context)
    if capturedBefore[key] == nil { capturedBefore[key] = context.anyStateCopy() }
  }

  /// The captured states of the transaction being committed, with each model's state now;
  /// nil when it changed nothing. Lock held.
  func takeCapturedStates(changed: Bool) -> RecordedStates? {
    defer { capturedBefore = [:] }
    guard changed, !capturedBefore.isEmpty else { return nil }
    var after: [RecordedStates.Key: any Sendable] = [:]
    for key in capturedBefore.keys { after[key] = key.context.anyStateCopy() }
    return RecordedStates(before: capturedBefore, after: after)
  }
}

extension ModelAnchor {
  /// Calls `body` with what every transaction committed from now on modified, for as long
  /// as the returned tap is kept. Testers use it for the storage categories of exhaustivity.
  package func tapModifications(_ body: @escaping @Sendable (ModificationBatch) -> Void) -> ModificationTap {
    tree.fanOut.tapModifications(body)
  }

  /// Makes the modification taps' batches carry the states of the models each transaction
  /// wrote (``ModificationBatch/states``), for as long as the returned value is kept.
  package func captureStates() -> StateCapture {
    tree.lock.withLock { tree.fanOut.stateCaptures += 1 }
    return StateCapture(tree: tree)
  }
}

/// Keeps state capture on (see ``ModelAnchor/captureStates()``).
package final class StateCapture: Sendable {
  private let tree: ModelTree

  init(tree: ModelTree) { self.tree = tree }

  deinit {
    tree.lock.withLock {
      tree.fanOut.stateCaptures -= 1
      if tree.fanOut.stateCaptures == 0 { tree.fanOut.capturedBefore = [:] }
    }
  }
}
