#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArborLocking

extension ModelUndoEntry {
  /// An entry that does nothing (its tree is gone).
  static var nothing: ModelUndoEntry { ModelUndoEntry(apply: {}, captureReverse: { ModelUndoEntry.nothing }) }
}

/// What a step of a journalled history restores: parts of live models, or parts kept as
/// JSON (a history rebuilt after a restart), decoded when the step is applied.
enum UndoPartSource: Sendable {
  case live(any UndoPart)
  case kept(UndoStep.Part)
}

/// A step of a journalled history: its parts and their JSON.
struct RecordedUndo: Sendable {
  let parts: [UndoPartSource]
  let step: UndoStep
}

/// The saved values of some properties of one model: what an undo step restores.
protocol UndoPart: Sendable {
  var anyContext: AnyModelContext { get }
  /// Writes the saved values back. Lock held.
  func restore()
  /// The same properties as they are now. Lock held.
  func current() -> any UndoPart
  /// The saved values as JSON, arrays of models as splices from their current value:
  /// called once the transaction's writes are done. Lock held.
  func encoded() -> UndoStep.Part
}

struct StateUndoPart<M: Model>: UndoPart {
  let context: ModelContext<M>
  let properties: [Int]
  let state: M._$State

  var anyContext: AnyModelContext { context }

  func restore() {
    var scope = context._beginWrite()
    context.restoreProperties(properties, from: state, &scope)
    context._endWrite(scope)
  }

  func current() -> any UndoPart {
    StateUndoPart(context: context, properties: properties, state: context._state)
  }

  func encoded() -> UndoStep.Part {
    let (values, splices) = StateFields.encodedPart(properties, saved: state, current: context._state, in: M.self)
    return UndoStep.Part(model: context.id, type: M._$typeName, values: values, splices: splices.isEmpty ? nil : splices)
  }
}

/// One model's `trackUndo`: which properties, and its state as of the last commit that
/// changed one of them. Guarded by the tree lock.
class UndoTracker {
  /// The tracked properties, by name (as changes name them) to index.
  let tracked: [String: Int]

  init(tracked: [String: Int]) { self.tracked = tracked }

  /// The saved values of `properties` before the transaction just committed, and the
  /// current state kept for the next one. Lock held.
  func take(_ properties: [Int]) -> (any UndoPart)? { fatalError("abstract") }
}

final class ModelUndoTracker<M: Model>: UndoTracker {
  weak var context: ModelContext<M>?
  var previous: M._$State

  init(context: ModelContext<M>, tracked: [String: Int]) {
    self.context = context
    self.previous = context._state
    super.init(tracked: tracked)
  }

  override func take(_ properties: [Int]) -> (any UndoPart)? {
    guard let context else { return nil }
    let part = StateUndoPart(context: context, properties: properties.sorted(), state: previous)
    previous = context._state
    return part
  }
}

/// A tree's undo tracking: the models that track undo, the steps waiting for the backend,
/// the backend, and the pseudo-property of the root that `canUndo` readers observe.
final class UndoRecorder: @unchecked Sendable {  // Sendable: every field is guarded by the tree lock
  private weak var tree: ModelTree?
  /// The root's pseudo-property read by `canUndo` and `canRedo`.
  private let slot: Int
  @exclusivity(unchecked) private var trackers: [ModelID: UndoTracker] = [:]
  /// The transaction being committed restores an undo step: it is not a step itself.
  @exclusivity(unchecked) private var isRestoring = false
  @exclusivity(unchecked) private var pending: [ModelUndoEntry] = []
  /// The thread handing steps to the backend, while one is.
  @exclusivity(unchecked) private var deliverer: pthread_t?
  /// Held while steps are handed to the backend: ``deliverCommittedSteps()`` waits on it
  /// for a push another thread has under way. Taken before the tree lock, never inside it.
  private let pushing = LockedState(())
  @exclusivity(unchecked) private(set) var backend: (any UndoBackend)?
  @exclusivity(unchecked) private var observation: UndoAvailabilityObservation?
  /// The stack whose history a host journals (``ModelAnchor/keepUndoHistory(restoring:limit:)``):
  /// its steps are pushed, undone and redone under the tree's lock, in the order of the
  /// commits, and each commit says what it did to the history (`history`).
  @exclusivity(unchecked) private(set) var journal: ModelUndoStack?
  /// What the transaction being committed did to the journalled history.
  @exclusivity(unchecked) private var history: [UndoHistoryChange] = []
  /// The journalled stack changed: its observers are told after the commit.
  @exclusivity(unchecked) private var journalChanged = false

  /// Lock held.
  init(tree: ModelTree, slot: Int) {
    self.tree = tree
    self.slot = slot
  }

  /// Lock held.
  var isTracking: Bool { !trackers.isEmpty }

  /// The transaction under way replays revisions another process committed: like an undo
  /// step's restore, it is not a step itself. Lock held.
  func beginReplaying() { isRestoring = true }

  // MARK: Tracking (lock held)

  func track<M: Model>(_ context: ModelContext<M>, properties: [Int]) {
    var tracked: [String: Int] = [:]
    for index in properties { tracked[M._$propertyName(index)] = index }
    trackers[context.id] = ModelUndoTracker(context: context, tracked: tracked)
  }

  func untrack(_ id: ModelID) {
    trackers[id] = nil
  }

  /// The outermost transaction is committing: records its changes of tracked properties
  /// as one step. Returns whether a step waits to be delivered. Lock held.
  func didCommit(changed: Bool, changes: [Change]) -> Bool {
    defer { isRestoring = false }
    guard changed, !trackers.isEmpty else { return false }
    var touched: [ModelID: [Int]] = [:]
    var order: [ModelID] = []
    for change in changes {
      guard let tracker = trackers[change.modelID], let index = tracker.tracked[change.property] else { continue }
      if touched[change.modelID] == nil { order.append(change.modelID) }
      if !touched[change.modelID, default: []].contains(index) { touched[change.modelID, default: []].append(index) }
    }
    let parts = order.compactMap { id in trackers[id]?.take(touched[id]!) }
    guard !isRestoring, !parts.isEmpty else { return false }
    if let journal {
      let step = UndoStep(parts: parts.map { $0.encoded() })
      journal.pushLocked(entry(RecordedUndo(parts: parts.map { .live($0) }, step: step)))
      history.append(.recorded(step, limit: journal.limit))
      journalChanged = true
      return true
    }
    pending.append(entry(restoring: parts))
    return true
  }

  /// What the committing transaction did to the journalled history, taken once. Lock held.
  func takeHistoryChanges() -> [UndoHistoryChange] {
    guard !history.isEmpty else { return [] }
    defer { history = [] }
    return history
  }

  private func entry(restoring parts: [any UndoPart]) -> ModelUndoEntry {
    ModelUndoEntry(
      apply: { [weak self] in self?.apply(parts) },
      captureReverse: { [weak self] in
        guard let self, let tree = self.tree else { return .nothing }
        let current = tree.lock.withLock { parts.map { $0.current() } }
        return self.entry(restoring: current)
      })
  }

  /// Restores `parts` as one transaction, which is not recorded as a step.
  private func apply(_ parts: [any UndoPart]) {
    guard let first = parts.first?.anyContext else { return }
    let scope = first._beginWrite()
    isRestoring = true
    for part in parts { part.restore() }
    first._endWrite(scope)
  }

  // MARK: The journalled history (ModelAnchor.keepUndoHistory)

  /// Journals `stack`'s history from now on, starting from `kept`. Lock held.
  func beginJournal(_ stack: ModelUndoStack, restoring kept: UndoHistory) {
    journal = stack
    history = []
    func entries(_ steps: [UndoStep]) -> [ModelUndoEntry] {
      steps.map { entry(RecordedUndo(parts: $0.parts.map { .kept($0) }, step: $0)) }
    }
    stack.beginJournal(self, undo: entries(kept.undo), redo: entries(kept.redo))
  }

  /// The journalled history as JSON; nil when the history is not journalled. Lock held.
  var journalledHistory: UndoHistory? { journal?.historyLocked() }

  /// An entry of the journalled history.
  private func entry(_ recorded: RecordedUndo) -> ModelUndoEntry {
    ModelUndoEntry(
      apply: { [weak self] in
        guard let self, let tree = self.tree else { return }
        let parts = tree.lock.withLock { self.resolve(recorded) }
        self.apply(parts)
      },
      captureReverse: { [weak self] in
        guard let self, let tree = self.tree else { return .nothing }
        // Outside the journalled stack (which undoes with `step`), a plain entry.
        let current = tree.lock.withLock { self.resolve(recorded).map { $0.current() } }
        return self.entry(restoring: current)
      },
      recorded: recorded)
  }

  /// The live parts of a step: kept parts decoded into the models they name (skipped when
  /// the model is not in the tree). Lock held.
  private func resolve(_ recorded: RecordedUndo) -> [any UndoPart] {
    guard let tree else { return [] }
    var models: DecodedModels?
    var parts: [any UndoPart] = []
    for source in recorded.parts {
      switch source {
      case .live(let part):
        parts.append(part)
      case .kept(let kept):
        guard let context = tree.liveContext(kept.model), context.typeName == kept.type else { continue }
        if models == nil { models = DecodedModels(live: { [weak tree] id in tree?.liveContext(id) }) }
        if let part = context.undoPart(decoding: kept, models: models!) { parts.append(part) }
      }
    }
    // A decode writes the values it read into the live models it reused: put them back.
    models?.putBackLiveStates()
    return parts
  }

  /// Undoes (or redoes) the newest step of the journalled `stack` as one transaction, which
  /// records what it did to the history. Returns whether there was a step. No lock held.
  func step(undoing: Bool, in stack: ModelUndoStack) -> Bool {
    guard let tree, let root = tree.lock.withLock({ tree.root }) else { return false }
    let scope = root._beginWrite()
    var stepped = false
    if journal === stack, let entry = stack.popLocked(fromUndo: undoing) {
      let parts = entry.recorded.map(resolve) ?? []
      let reverse = parts.map { $0.current() }
      isRestoring = true
      for part in parts { part.restore() }
      // Encoded once restored: its splices start from the restored values.
      let reverseStep = UndoStep(parts: reverse.map { $0.encoded() })
      stack.appendLocked(self.entry(RecordedUndo(parts: reverse.map { .live($0) }, step: reverseStep)), toUndo: !undoing)
      history.append(undoing ? .undone(redo: reverseStep) : .redone(undo: reverseStep))
      // The history moved: that is a revision, even if no value did.
      tree.changedInTransaction = true
      stepped = true
    }
    root._endWrite(scope)
    return stepped
  }

  /// Forgets the journalled stack's steps as one transaction. No lock held.
  func clear(_ stack: ModelUndoStack) -> Bool {
    guard let tree, let root = tree.lock.withLock({ tree.root }) else { return false }
    let scope = root._beginWrite()
    let cleared = journal === stack
    if cleared {
      stack.replaceLocked(undo: [], redo: [])
      history.append(.cleared)
      tree.changedInTransaction = true
    }
    root._endWrite(scope)
    return cleared
  }

  // MARK: Delivery (no lock held)

  /// Hands the recorded steps to the backend, in order, one thread at a time.
  func deliver() { _ = deliverSteps() }

  /// Hands every step committed so far to the backend before it returns, waiting for a
  /// push another thread has under way: `undo()` called right after another thread's
  /// commit (an event handler's task, say) must find that commit's step, not the one
  /// before. A backend that undoes from its own `push` does not wait for itself, and an
  /// undo inside a transaction waits for nothing: this thread holds the tree's lock (another
  /// thread's transaction would have ended before the lock was had), which a push under way
  /// may be waiting for, and the backend is never called under it.
  func deliverCommittedSteps() {
    guard let tree else { return }
    if tree.lock.withLock({ tree.depth > 0 }) { return }
    while !deliverSteps() {
      let pushingHere = tree.lock.withLock { deliverer.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
      if pushingHere { return }
      pushing.withLock {}
      sched_yield()
    }
  }

  private enum Delivery {
    case elsewhere
    case done
    case push([ModelUndoEntry], (any UndoBackend)?)
  }

  /// Hands the pending steps to the backend until none is left. Returns false, having
  /// handed nothing, when another thread is handing them. No lock held.
  private func deliverSteps() -> Bool {
    guard let tree else { return true }
    let changedJournal: ModelUndoStack? = tree.lock.withLock {
      defer { journalChanged = false }
      return journalChanged ? journal : nil
    }
    changedJournal?.notifyObservers()
    var starting = true
    while true {
      let next: Delivery = tree.lock.withLock {
        if starting && deliverer != nil { return .elsewhere }
        guard !pending.isEmpty else {
          deliverer = nil
          return .done
        }
        deliverer = pthread_self()
        defer { pending = [] }
        return .push(pending, backend)
      }
      starting = false
      switch next {
      case .elsewhere: return false
      case .done: return true
      case .push(let entries, let backend):
        pushing.withLock {
          for entry in entries { backend?.push(entry) }
        }
      }
    }
  }

  // MARK: Backend and availability

  /// Replaces the backend (nil: steps are dropped). No lock held.
  func setBackend(_ newBackend: (any UndoBackend)?) {
    guard let tree else { return }
    let old: UndoAvailabilityObservation?? = tree.lock.withLock {
      if backend === newBackend { return .none }
      backend = newBackend
      // Another backend: the history is no longer journalled.
      if let journal, journal !== newBackend {
        journal.endJournal()
        self.journal = nil
      }
      defer { observation = nil }
      return .some(observation)
    }
    guard case .some(let previous) = old else { return }
    previous?.cancel()
    let newObservation = newBackend?.observeAvailability { [weak self] in self?.availabilityChanged() }
    tree.lock.withLock {
      if backend === newBackend { observation = newObservation }
    }
    availabilityChanged()
  }

  /// The backend, read with the root's availability observed by the current `Observed`.
  func observedBackend() -> (any UndoBackend)? {
    guard let tree else { return nil }
    return tree.lock.withLock {
      tree.root?._trackRead(slot)
      return backend
    }
  }

  var currentBackend: (any UndoBackend)? {
    guard let tree else { return nil }
    return tree.lock.withLock { backend }
  }

  var isTrackingUndo: Bool {
    guard let tree else { return false }
    return tree.lock.withLock { isTracking }
  }

  private func availabilityChanged() {
    guard let root = tree?.lock.withLock({ tree?.root }) else { return }
    root.touch(slot)
  }
}

extension ModelTree {
  /// The anchored model with `id`, the root included. Lock held.
  func liveContext(_ id: ModelID) -> AnyModelContext? {
    if let context = contextsByID[id] { return context }
    if let root, root.id == id { return root }
    return nil
  }

  /// The tree's undo recorder, made on first use with `backend` (or a new
  /// ``ModelUndoStack``). No lock held.
  func undoRecorder(configuredBackend: () -> (any UndoBackend)?) -> UndoRecorder {
    if let existing = lock.withLock({ fanOut.undo }) { return existing }
    let backend = configuredBackend() ?? ModelUndoStack()
    let (recorder, created): (UndoRecorder, Bool) = lock.withLock {
      if let undo = fanOut.undo { return (undo, false) }
      let slot: Int
      if let root {
        let hooks = root.ensureHooks
        slot = hooks.nextMemoSlot
        hooks.nextMemoSlot -= 1
      } else {
        slot = Int.min
      }
      let recorder = UndoRecorder(tree: self, slot: slot)
      fanOut.undo = recorder
      return (recorder, true)
    }
    if created { recorder.setBackend(backend) }
    return recorder
  }
}
