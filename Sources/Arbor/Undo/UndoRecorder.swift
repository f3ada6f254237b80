extension ModelUndoEntry {
  /// An entry that does nothing (its tree is gone).
  static var nothing: ModelUndoEntry { ModelUndoEntry(apply: {}, captureReverse: { ModelUndoEntry.nothing }) }
}

/// The saved values of some properties of one model: what an undo step restores.
protocol UndoPart: Sendable {
  var anyContext: AnyModelContext { get }
  /// Writes the saved values back. Lock held.
  func restore()
  /// The same properties as they are now. Lock held.
  func current() -> any UndoPart
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
  @exclusivity(unchecked) private var delivering = false
  @exclusivity(unchecked) private(set) var backend: (any UndoBackend)?
  @exclusivity(unchecked) private var observation: UndoAvailabilityObservation?

  /// Lock held.
  init(tree: ModelTree, slot: Int) {
    self.tree = tree
    self.slot = slot
  }

  /// Lock held.
  var isTracking: Bool { !trackers.isEmpty }

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
    pending.append(entry(restoring: parts))
    return true
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

  // MARK: Delivery (no lock held)

  /// Hands the recorded steps to the backend, in order, one thread at a time.
  func deliver() {
    guard let tree else { return }
    var starting = true
    while true {
      let next: ([ModelUndoEntry], (any UndoBackend)?)? = tree.lock.withLock {
        if starting && delivering { return nil }
        guard !pending.isEmpty else {
          delivering = false
          return nil
        }
        delivering = true
        defer { pending = [] }
        return (pending, backend)
      }
      starting = false
      guard let (entries, backend) = next else { return }
      for entry in entries { backend?.push(entry) }
    }
  }

  // MARK: Backend and availability

  /// Replaces the backend (nil: steps are dropped). No lock held.
  func setBackend(_ newBackend: (any UndoBackend)?) {
    guard let tree else { return }
    let old: UndoAvailabilityObservation?? = tree.lock.withLock {
      if backend === newBackend { return .none }
      backend = newBackend
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
  /// The tree's undo recorder, made on first use with `backend` (or a new
  /// ``ModelUndoStack``). No lock held.
  func undoRecorder(configuredBackend: () -> (any UndoBackend)?) -> UndoRecorder {
    if let existing = lock.withLock({ undo }) { return existing }
    let backend = configuredBackend() ?? ModelUndoStack()
    let (recorder, created): (UndoRecorder, Bool) = lock.withLock {
      if let undo { return (undo, false) }
      let slot: Int
      if let root {
        let hooks = root.ensureHooks
        slot = hooks.nextMemoSlot
        hooks.nextMemoSlot -= 1
      } else {
        slot = Int.min
      }
      let recorder = UndoRecorder(tree: self, slot: slot)
      undo = recorder
      return (recorder, true)
    }
    if created { recorder.setBackend(backend) }
    return recorder
  }
}
