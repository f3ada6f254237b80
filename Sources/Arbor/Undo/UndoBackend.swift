import ArborLocking
/// One undoable step: restoring the tracked properties a transaction changed to the values
/// they had before it.
///
/// A backend stores entries and replays them; it never needs to look inside one.
///
/// ```swift
/// let reverse = entry.captureReverse()  // the state as it is now
/// entry.apply()                         // back to the state before the step
/// ```
public struct ModelUndoEntry: Sendable {
  /// Restores the state this entry represents, as one transaction.
  public let apply: @Sendable () -> Void
  /// An entry representing the current state of the same properties. Call it before
  /// ``apply`` to get the entry that undoes the apply.
  public let captureReverse: @Sendable () -> ModelUndoEntry

  /// The step as its tree's journalled history knows it; nil for other entries.
  let recorded: RecordedUndo?

  /// An entry made of the two closures.
  public init(apply: @escaping @Sendable () -> Void, captureReverse: @escaping @Sendable () -> ModelUndoEntry) {
    self.apply = apply
    self.captureReverse = captureReverse
    self.recorded = nil
  }

  init(apply: @escaping @Sendable () -> Void, captureReverse: @escaping @Sendable () -> ModelUndoEntry, recorded: RecordedUndo) {
    self.apply = apply
    self.captureReverse = captureReverse
    self.recorded = recorded
  }
}

/// Stores and replays ``ModelUndoEntry`` values: ``ModelUndoStack`` (the default), or your
/// own type.
///
/// ```swift
/// let stack = ModelUndoStack()
/// let model = EditorModel().withAnchor { $0.undoSystem.backend = stack }
/// ```
///
/// A backend is called with no tree lock held, and may call ``ModelUndoEntry/apply`` from
/// `undo()` and `redo()`. It must call the `onChange` closures given to
/// ``observeAvailability(_:)`` (with no lock of its own held) after ``canUndo`` or
/// ``canRedo`` may have changed, so that `node.undoSystem.canUndo` wakes its observers.
public protocol UndoBackend: AnyObject, Sendable {
  /// Whether ``undo()`` would do something.
  var canUndo: Bool { get }
  /// Whether ``redo()`` would do something.
  var canRedo: Bool { get }
  /// Stores a new step; the steps that could be redone are dropped.
  func push(_ entry: ModelUndoEntry)
  /// Applies the most recent step and keeps its reverse for ``redo()``.
  func undo()
  /// Applies the most recently undone step's reverse and keeps its reverse for ``undo()``.
  func redo()
  /// Calls `onChange` after every change of ``canUndo`` or ``canRedo`` until the returned
  /// observation is cancelled or released.
  func observeAvailability(_ onChange: @escaping @Sendable () -> Void) -> UndoAvailabilityObservation
}

/// An observation of an ``UndoBackend``'s availability; cancelled when released.
///
/// ```swift
/// let observation = stack.observeAvailability { print(stack.canUndo) }
/// observation.cancel()
/// ```
public final class UndoAvailabilityObservation: Sendable {
  private let onCancel: LockedState<(@Sendable () -> Void)?>

  /// An observation that runs `onCancel` once, when cancelled or released.
  public init(onCancel: @escaping @Sendable () -> Void) {
    self.onCancel = LockedState(onCancel)
  }

  /// Stops the calls.
  public func cancel() {
    let body = onCancel.withLock { body -> (@Sendable () -> Void)? in
      defer { body = nil }
      return body
    }
    body?()
  }

  deinit { cancel() }
}

/// The default in-memory ``UndoBackend``: a stack of steps to undo and one to redo.
///
/// ```swift
/// let stack = ModelUndoStack()
/// let model = EditorModel().withAnchor { $0.undoSystem.backend = stack }
/// model.title = "Draft"
/// stack.undo()   // title is "" again
/// stack.redo()   // title is "Draft" again
/// ```
public final class ModelUndoStack: UndoBackend {
  private struct State {
    var undoEntries: [ModelUndoEntry] = []
    var redoEntries: [ModelUndoEntry] = []
    var observers: [Int: @Sendable () -> Void] = [:]
    var nextObserverID = 0
    /// The recorder of the tree whose history is journalled with this stack: undo and redo
    /// then run as its transactions (see ``UndoRecorder/step(undoing:in:)``).
    weak var journal: UndoRecorder?
  }

  private let state = LockedState(State())
  /// At most this many steps are kept; the oldest go first.
  public let limit: Int

  /// An empty stack keeping at most `limit` steps.
  public init(limit: Int = 1_000) {
    self.limit = max(1, limit)
  }

  public var canUndo: Bool { state.withLock { !$0.undoEntries.isEmpty } }
  public var canRedo: Bool { state.withLock { !$0.redoEntries.isEmpty } }
  /// How many steps can be undone.
  public var undoCount: Int { state.withLock { $0.undoEntries.count } }
  /// How many steps can be redone.
  public var redoCount: Int { state.withLock { $0.redoEntries.count } }

  public func push(_ entry: ModelUndoEntry) {
    let limit = self.limit
    state.withLock { state in
      state.undoEntries.append(entry)
      if state.undoEntries.count > limit { state.undoEntries.removeFirst(state.undoEntries.count - limit) }
      state.redoEntries = []
    }
    notify()
  }

  public func undo() {
    if let recorder = state.withLock({ $0.journal }) {
      if recorder.step(undoing: true, in: self) { notify() }
      return
    }
    guard let entry = state.withLock({ $0.undoEntries.popLast() }) else { return }
    let reverse = entry.captureReverse()
    entry.apply()
    state.withLock { $0.redoEntries.append(reverse) }
    notify()
  }

  public func redo() {
    if let recorder = state.withLock({ $0.journal }) {
      if recorder.step(undoing: false, in: self) { notify() }
      return
    }
    guard let entry = state.withLock({ $0.redoEntries.popLast() }) else { return }
    let reverse = entry.captureReverse()
    entry.apply()
    state.withLock { $0.undoEntries.append(reverse) }
    notify()
  }

  /// Forgets every step.
  public func removeAll() {
    if let recorder = state.withLock({ $0.journal }) {
      if recorder.clear(self) { notify() }
      return
    }
    state.withLock {
      $0.undoEntries = []
      $0.redoEntries = []
    }
    notify()
  }

  public func observeAvailability(_ onChange: @escaping @Sendable () -> Void) -> UndoAvailabilityObservation {
    let id = state.withLock { state in
      let id = state.nextObserverID
      state.nextObserverID += 1
      state.observers[id] = onChange
      return id
    }
    return UndoAvailabilityObservation { [weak self] in
      _ = self?.state.withLock { $0.observers.removeValue(forKey: id) }
    }
  }

  private func notify() {
    let observers = state.withLock { Array($0.observers.values) }
    for observer in observers { observer() }
  }

  // MARK: A journalled history (its tree's lock held; this stack's lock nests inside it)

  /// Journals this stack's history with `recorder`'s tree, starting from these entries.
  func beginJournal(_ recorder: UndoRecorder, undo: [ModelUndoEntry], redo: [ModelUndoEntry]) {
    state.withLock {
      $0.journal = recorder
      $0.undoEntries = Array(undo.suffix(limit))
      $0.redoEntries = redo
    }
  }

  /// Stops journalling: undo and redo work on the entries alone again.
  func endJournal() {
    state.withLock { $0.journal = nil }
  }

  /// Pushes a new step, as ``push(_:)`` does, without telling the observers.
  func pushLocked(_ entry: ModelUndoEntry) {
    let limit = self.limit
    state.withLock { state in
      state.undoEntries.append(entry)
      if state.undoEntries.count > limit { state.undoEntries.removeFirst(state.undoEntries.count - limit) }
      state.redoEntries = []
    }
  }

  func popLocked(fromUndo: Bool) -> ModelUndoEntry? {
    state.withLock { fromUndo ? $0.undoEntries.popLast() : $0.redoEntries.popLast() }
  }

  func appendLocked(_ entry: ModelUndoEntry, toUndo: Bool) {
    state.withLock {
      if toUndo { $0.undoEntries.append(entry) } else { $0.redoEntries.append(entry) }
    }
  }

  func replaceLocked(undo: [ModelUndoEntry], redo: [ModelUndoEntry]) {
    state.withLock {
      $0.undoEntries = undo
      $0.redoEntries = redo
    }
  }

  /// The history as JSON (entries that are not journalled steps are left out).
  func historyLocked() -> UndoHistory {
    state.withLock { UndoHistory(undo: $0.undoEntries.compactMap(\.recorded?.step), redo: $0.redoEntries.compactMap(\.recorded?.step)) }
  }

  /// Tells the observers that ``canUndo`` or ``canRedo`` may have changed. No lock held.
  func notifyObservers() { notify() }
}
