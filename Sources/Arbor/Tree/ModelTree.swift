import Dependencies
import IssueReporting
import Synchronization

/// One anchored tree: its lock, its revision, and the transaction in progress.
///
/// Every field is guarded by `lock`.
@usableFromInline
final class ModelTree: @unchecked Sendable {  // Sendable: every field is guarded by `lock`
  // MARK: The tree

  @usableFromInline let lock = TreeLock()
  /// The lock, unretained, for the hot paths.
  var lockReference: Unmanaged<TreeLock> { Unmanaged.passUnretained(lock) }
  /// The root context. Weak: the root's model values and its anchor own it.
  weak var root: AnyModelContext?
  /// The revision of the last committed transaction that changed state.
  @exclusivity(unchecked) var revision: UInt64
  /// The dependencies the root was anchored with.
  @exclusivity(unchecked) var dependencies: DependencyValues

  // MARK: The open transaction (cleared at each commit; the hot fields come first)

  /// Nesting of open transactions (explicit or implicit, one per write).
  @exclusivity(unchecked) @usableFromInline var depth = 0
  @exclusivity(unchecked) var changedInTransaction = false
  @exclusivity(unchecked) var pendingChanges: [Change] = []
  @exclusivity(unchecked) var pendingObservers: [AccessObserver] = []
  @exclusivity(unchecked) var pendingActivations = PendingActivations()
  /// Every anchored model but the root, by id, as its context: intents find their target
  /// by id without walking the tree. Kept by `adoptSubtree` and `destruct`; the root is not
  /// in it (a `withAnchor()` root must be free to go when its last reference does). One
  /// word per slot (see ``ContextIndex``).
  let contextsByID = ContextIndex()
  /// The values of the anchored models whose value holds more than its context (a model
  /// with `let`s), which the context alone cannot give back.
  @exclusivity(unchecked) var valuesWithLetsByID: [ModelID: any Model] = [:]
  @exclusivity(unchecked) var pendingDetached: [AnyModelContext] = []
  /// Counts the changes to where models sit (see ``structureChanged()``): a model found by
  /// its path stays where it was while the count is unchanged.
  @exclusivity(unchecked) private(set) var structureGeneration: UInt64 = 0
  /// Intents' paths, resolved (see ``PathCache``).
  @exclusivity(unchecked) var pathCache = PathCache()
  /// Issues found under the lock, reported once it is released.
  @exclusivity(unchecked) var pendingIssues: [String] = []
  /// Tasks cancelled inside a transaction, cancelled once it has committed.
  @exclusivity(unchecked) var pendingCancellations: [Task<Void, Never>] = []

  // MARK: Models the tree holds besides its state

  /// This tree's instances of models used as dependencies.
  @exclusivity(unchecked) var dependencyModels: [ModelID: any Model] = [:]
  /// Makes the root's model value from its context (hierarchy queries reach the root as an
  /// ancestor). It holds a copy of the root's `let`s over an empty context, never the root
  /// context itself, which would keep a `withAnchor()` tree alive forever.
  @exclusivity(unchecked) var rootModel: (@Sendable (AnyModelContext) -> (any Model)?)?

  // MARK: Who follows the commits

  /// The change-set subscribers and listeners, modification and event taps, and undo: the
  /// tree hands each commit to it.
  let fanOut: CommitFanOut

  // MARK: Inspection (testers)

  /// The models' running tasks (testers).
  let tasks = TaskRegistry()

  init(revision: UInt64 = 0, dependencies: DependencyValues) {
    self.revision = revision
    self.dependencies = dependencies
    self.fanOut = CommitFanOut(lock: lock)
  }

  func record(_ change: Change) {
    pendingChanges.append(change)
    if let error = change.encodingError {
      let place = change.paths.first.map { $0.appending(.property(change.property)).description } ?? change.property
      pendingIssues.append(
        "The value written to '\(change.property)' of \(change.modelType) at \(place) cannot be encoded as JSON (\(error)); "
          + "the change set of this revision is not exact and watchers must re-read the state.")
    }
  }

  /// What ``commitQuietly()`` did.
  enum QuietCommit {
    /// Nothing: more than observers are to follow the commit; ``commit()`` does it all.
    case notDone
    /// Committed, and nothing is to follow.
    case done
    /// Committed; these observers are to be told once the lock is released.
    case doneNotifying([AccessObserver])
  }

  /// Commits the transaction when nothing but observers is to follow it (no undo, taps,
  /// subscribers, listeners, traced call, activation or issue: a write to a tree nobody
  /// records, watched by `Observed` or not); otherwise changes nothing and returns
  /// `.notDone`, for ``commit()``. Exactly what `commit()` does in those cases, without
  /// building its work, which cost a plain write as much as the write itself. Lock held.
  @inline(__always)
  func commitQuietly() -> QuietCommit {
    guard fanOut.ignoresTransactions, pendingChanges.isEmpty, pendingDetached.isEmpty, pendingActivations.isEmpty,
      pendingCancellations.isEmpty, pendingIssues.isEmpty
    else { return .notDone }
    if changedInTransaction {
      guard fanOut.ignoresChanges else { return .notDone }
      revision += 1
      changedInTransaction = false
    }
    guard !pendingObservers.isEmpty else { return .done }
    return .doneNotifying(takePendingObservers())
  }

  /// The observers the transaction woke, each once. Lock held.
  private func takePendingObservers() -> [AccessObserver] {
    defer { pendingObservers = [] }
    // One observer (an `Observed` of one property): nothing to deduplicate.
    guard pendingObservers.count > 1 else { return pendingObservers }
    var seen = Set<ObjectIdentifier>()
    return pendingObservers.filter { seen.insert(ObjectIdentifier($0)).inserted }
  }

  /// Ends the outermost transaction, handing it to ``fanOut``. Called with the lock held;
  /// the returned work must run after the lock is released.
  func commit() -> PostCommitWork? {
    var work = PostCommitWork()
    let followed = fanOut.commit(
      changed: changedInTransaction, changes: pendingChanges, revision: changedInTransaction ? revision + 1 : revision, into: &work)
    if changedInTransaction {
      revision += 1
      changedInTransaction = false
      if !pendingChanges.isEmpty { pendingChanges = [] }
    }
    guard followed || !pendingDetached.isEmpty || !pendingActivations.isEmpty || !pendingObservers.isEmpty
      || !pendingCancellations.isEmpty || !pendingIssues.isEmpty
    else { return nil }
    if !pendingIssues.isEmpty {
      work.issues = pendingIssues
      pendingIssues = []
    }
    if !pendingCancellations.isEmpty {
      work.cancellations = pendingCancellations
      pendingCancellations = []
    }
    if !pendingDetached.isEmpty {
      let detached = pendingDetached
      pendingDetached = []
      for context in detached where context.parentLinks.isEmpty && context.lifetime == .anchored && context !== root {
        destruct(context, into: &work)
      }
    }
    if let activations = pendingActivations.take() { work.activations = activations }
    if !pendingObservers.isEmpty {
      work.observers = takePendingObservers()
    }
    return work
  }

  /// Notes that a model was linked, unlinked, moved or destructed: every path found before
  /// must be walked again. Lock held.
  @inline(__always)
  func structureChanged() {
    structureGeneration &+= 1
  }

  /// The anchored model with `id` (not the root), as a value. Lock held.
  func model(withID id: ModelID) -> (any Model)? {
    guard let context = contextsByID[id] else { return nil }
    return context.valueOfContextOnlyModel() ?? valuesWithLetsByID[id]
  }

  /// Registers an anchored model (not the root) by its id. Lock held.
  func register(_ model: any Model, context: AnyModelContext) {
    contextsByID.insert(context)
    if !context.valueIsContextOnly { valuesWithLetsByID[context.id] = model }
  }

  /// Marks `context` and every descendant no longer reachable as destructed, parents first.
  func destruct(_ context: AnyModelContext, into work: inout PostCommitWork) {
    structureChanged()
    var stack: [AnyModelContext] = [context]
    // The children that lost a link to a destructed parent: their parent observers wake,
    // with the commit's other observers (or, when the tree is torn down, with its work).
    var lostParent: [AnyModelContext] = []
    while let current = stack.popLast() {
      current.lifetime = .destructed
      contextsByID.remove(current.id)
      if !valuesWithLetsByID.isEmpty { valuesWithLetsByID[current.id] = nil }
      if !fanOut.excludedFromModifications.isEmpty { fanOut.excludedFromModifications[current.id] = nil }
      work.deactivations.append(current)
      guard let table = current.childTable else { continue }
      current.childTable = nil
      var orphans: [AnyModelContext] = []
      var seen: Set<ObjectIdentifier> = []
      for entry in table.entries {
        for child in entry.children {
          if child.parentLinks.removeAll(parent: current, property: entry.property) > 0 { lostParent.append(child) }
          if child.parentLinks.isEmpty && child.lifetime == .anchored && seen.insert(ObjectIdentifier(child)).inserted {
            orphans.append(child)
          }
        }
      }
      stack.append(contentsOf: orphans.reversed())
    }
    guard !lostParent.isEmpty else { return }
    // In a commit the root is anchored, and the pending observers are taken after this.
    if root?.lifetime == .anchored {
      for child in lostParent { child.collectParentObservers(into: &pendingObservers) }
    } else {
      for child in lostParent { child.collectParentObservers(into: &work.observers) }
    }
    work.addParentChanges(lostParent)
  }

  /// The issues found under the lock so far, as work to run once it is released. Lock held.
  func takePendingIssues() -> PostCommitWork {
    defer { pendingIssues = [] }
    return PostCommitWork(issues: pendingIssues)
  }

  /// Subscribes to committed change sets. Takes the lock.
  func subscribe(limit: Int) -> ChangeSets {
    lock.withLock { fanOut.subscribe(after: revision, limit: limit) }
  }

  /// Adds a synchronous listener of the change sets committed from now on. Takes the lock.
  func listen(limit: Int, notingOrigins: Bool = false, _ body: @escaping ChangeSetRelay.Body) -> ChangeSetListener {
    lock.withLock { fanOut.listen(after: revision, limit: limit, notingOrigins: notingOrigins, body) }
  }
}

/// What a commit leaves to do once the lock is released: cancel tasks cancelled during the
/// transaction, cancel the work of removed models (parents first), activate new ones
/// (parents first), wake observers.
struct PostCommitWork {
  var issues: [String] = []
  var cancellations: [Task<Void, Never>] = []
  var deactivations: [AnyModelContext] = []
  var activations: [Activation] = []
  var observers: [AccessObserver] = []
  /// Change sets were queued for the tree's listeners.
  var relay: ChangeSetRelay?
  /// Undo steps were recorded for the tree's undo backend.
  var undo: UndoRecorder?
  /// What the transaction modified, and the taps to hand it to.
  var modifications: ([@Sendable (ModificationBatch) -> Void], ModificationBatch)?

  /// Runs the work in an order that keeps what everyone sees consistent:
  ///
  /// 1. **The change-set listeners** (`relay`: the daemon's journal and watch hub) first,
  ///    so that they have this revision before anything below can commit the next one
  ///    (an activation or an observer that writes): revisions reach them in order.
  /// 2. **The modification taps** (testers, `observeModifications`) next, for the same
  ///    reason, with the batch of this very transaction.
  /// 3. **Undo** then tells its backend about the step this commit recorded, so that
  ///    `canUndo` observers below read the new step.
  /// 4. **Issues** found under the lock are reported before any model code runs, so that a
  ///    report is next to the write that caused it.
  /// 5. **Cancellations** of tasks cancelled inside the transaction, once it is committed
  ///    (their `catch` and `onCancel` code may write, and must see the committed state).
  /// 6. **Deactivations** of removed models (parents first) before **activations** of new
  ///    ones (parents first): a model replaced by another stops its work before the new
  ///    one starts, and an activation never sees a sibling that is going away still active.
  /// 7. **Observers** last: by then the listeners have the revision and the new models
  ///    are active, so an `Observed` or `onChange` that reads the tree finds it whole.
  func run() {
    relay?.deliver()
    if let (taps, batch) = modifications { for tap in taps { tap(batch) } }
    undo?.deliver()
    for issue in issues { reportIssue(issue) }
    for task in cancellations { task.cancel() }
    for context in deactivations { context.deactivate() }
    AnyModelContext.activate(all: activations)
    for observer in observers { observer.notify() }
  }
}

extension Model {
  /// The context as its type-erased base.
  var _$anyContext: AnyModelContext { _$modelContext }
}
