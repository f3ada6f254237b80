import Dependencies
import IssueReporting

/// Undo and redo of a tree's tracked properties: the `undoSystem` dependency.
///
/// Choose the backend when anchoring (the default is a new ``ModelUndoStack`` per tree),
/// and drive it from any model through `node.undoSystem`:
///
/// ```swift
/// let model = EditorModel().withAnchor { $0.undoSystem.backend = ModelUndoStack() }
/// model.node.undoSystem.undo()
/// let enabled = Observed { model.node.undoSystem.canUndo }
/// ```
public struct ModelUndoSystem: Sendable {
  private var configuredBackend: (any UndoBackend)?
  /// The tree's recorder, for the value `node.undoSystem` returns in an anchored tree.
  let recorder: UndoRecorder?

  /// A configuration with `backend`; nil means a new ``ModelUndoStack`` for each tree.
  public init(backend: (any UndoBackend)? = nil) {
    self.configuredBackend = backend
    self.recorder = nil
  }

  init(recorder: UndoRecorder) {
    self.configuredBackend = nil
    self.recorder = recorder
  }

  /// Where the steps are stored. Setting it on `node.undoSystem` switches the tree to the
  /// new backend at once (nil: new changes are not recorded).
  ///
  /// ```swift
  /// model.node.undoSystem.backend = ModelUndoStack(limit: 50)
  /// ```
  public var backend: (any UndoBackend)? {
    get {
      guard let recorder else { return configuredBackend }
      return recorder.currentBackend
    }
    set {
      configuredBackend = newValue
      recorder?.setBackend(newValue)
    }
  }

  /// Whether there is a step to undo. Observable: an `Observed` reading it wakes when it
  /// changes.
  ///
  /// ```swift
  /// let canUndo = Observed { model.node.undoSystem.canUndo }
  /// ```
  public var canUndo: Bool { availableBackend?.canUndo ?? false }

  /// Whether there is a step to redo. Observable, like ``canUndo``.
  ///
  /// ```swift
  /// let canRedo = Observed { model.node.undoSystem.canRedo }
  /// ```
  public var canRedo: Bool { availableBackend?.canRedo ?? false }

  /// Whether some model of the tree tracks undo (`node.trackUndo`).
  ///
  /// ```swift
  /// if model.node.undoSystem.isTracking { model.node.undoSystem.undo() }
  /// ```
  public var isTracking: Bool { recorder?.isTrackingUndo ?? false }

  /// Restores the state before the most recent step, as one transaction. The most recent
  /// step is that of the last commit before the call, on any thread: a step another thread
  /// is still handing to the backend is waited for.
  ///
  /// ```swift
  /// model.node.undoSystem.undo()
  /// ```
  public func undo() {
    recorder?.deliverCommittedSteps()
    backend?.undo()
  }

  /// Restores the state the most recently undone step had undone, as one transaction,
  /// after the steps still on their way to the backend, as ``undo()`` does.
  ///
  /// ```swift
  /// model.node.undoSystem.redo()
  /// ```
  public func redo() {
    recorder?.deliverCommittedSteps()
    backend?.redo()
  }

  private var availableBackend: (any UndoBackend)? {
    guard let recorder else { return configuredBackend }
    return recorder.observedBackend()
  }
}

/// The key of the `undoSystem` dependency.
public enum ModelUndoSystemKey: DependencyKey {
  public static var liveValue: ModelUndoSystem { ModelUndoSystem() }
  public static var testValue: ModelUndoSystem { ModelUndoSystem() }
}

extension DependencyValues {
  /// The undo system: which backend a tree's undo steps go to.
  ///
  /// ```swift
  /// let stack = ModelUndoStack()
  /// let model = EditorModel().withAnchor { $0.undoSystem.backend = stack }
  /// ```
  public var undoSystem: ModelUndoSystem {
    get { self[ModelUndoSystemKey.self] }
    set { self[ModelUndoSystemKey.self] = newValue }
  }
}

extension ModelNode {
  /// The tree's undo system: ``ModelUndoSystem/undo()``, ``ModelUndoSystem/redo()``, and
  /// the observable ``ModelUndoSystem/canUndo`` and ``ModelUndoSystem/canRedo``. Before
  /// the model is anchored, the `undoSystem` dependency as configured.
  ///
  /// ```swift
  /// func undoTapped() { node.undoSystem.undo() }
  /// ```
  public var undoSystem: ModelUndoSystem {
    get {
      guard let tree = context.tree else { return context.resolvedDependencies().undoSystem }
      return ModelUndoSystem(recorder: undoRecorder(in: tree))
    }
    nonmutating set {
      guard let tree = context.tree else { return }
      undoRecorder(in: tree).setBackend(newValue.backend)
    }
  }

  func undoRecorder(in tree: ModelTree) -> UndoRecorder {
    tree.undoRecorder { context.resolvedDependencies().undoSystem.backend }
  }

  /// Records changes of every state property of this model for undo: each transaction
  /// that changes some of them is one step of the tree's ``undoSystem``. Call it from
  /// `onActivate()`; a child model that should be undoable calls it in its own.
  ///
  /// ```swift
  /// func onActivate() { node.trackUndo() }
  /// ```
  public func trackUndo() {
    track(Array(0..<M._$propertyCount))
  }

  /// Records changes of the listed properties of this model for undo.
  ///
  /// ```swift
  /// func onActivate() { node.trackUndo(\.items) }  // newItemTitle is not undone
  /// ```
  public func trackUndo(_ properties: PartialKeyPath<M>...) {
    track(indices(of: properties))
  }

  /// Records changes of every state property of this model but the listed ones for undo.
  ///
  /// ```swift
  /// func onActivate() { node.trackUndo(excluding: \.searchQuery) }
  /// ```
  public func trackUndo(excluding properties: PartialKeyPath<M>...) {
    let excluded = Set(indices(of: properties))
    track((0..<M._$propertyCount).filter { !excluded.contains($0) })
  }

  private func indices(of properties: [PartialKeyPath<M>]) -> [Int] {
    properties.compactMap { property in
      guard let index = M._$propertyIndex(of: property) else {
        reportIssue("trackUndo: \(property) is not a tracked state property of \(M._$typeName).")
        return nil
      }
      return index
    }
  }

  private func track(_ properties: [Int]) {
    let context = self.context
    guard let tree = context.tree else {
      reportIssue("trackUndo() on \(M._$typeName) has no effect before the model is anchored: call it from onActivate().")
      return
    }
    let recorder = undoRecorder(in: tree)
    let tracking: Bool = tree.lock.withLock {
      guard context.lifetime == .anchored else { return false }
      recorder.track(context, properties: properties)
      return true
    }
    guard tracking else { return }
    let id = context.id
    onCancel { [weak tree] in
      guard let tree else { return }
      tree.lock.withLock { tree.fanOut.undo?.untrack(id) }
    }
  }
}
