import ArborJSON

/// One undo step as JSON: for each model it restores, the values of the tracked properties
/// it writes back. What a host keeps so that undo survives a restart.
///
/// A model is named by its id (``ModelID``), which snapshots keep; a model that declares an
/// `id` of its own gets a new ``ModelID`` at each restore, so a kept step cannot find it
/// again (that part of the step restores nothing).
///
/// ```swift
/// let step = UndoStep(parts: [.init(model: item.id, type: "TodoItem", values: ["title": "Milk"])])
/// ```
public struct UndoStep: Sendable, Hashable, Codable {
  /// The properties of one model that a step restores.
  public struct Part: Sendable, Hashable, Codable {
    /// The model's id.
    public var model: ModelID
    /// The model's type name, checked when the step is applied.
    public var type: String
    /// The values, by property name, as the model's state encodes them.
    public var values: [String: JSONValue]
    /// The arrays of models the step changes in place, by property name: what to put back
    /// where, so that a step costs what it changed, not the whole array.
    public var splices: [String: Splice]?

    /// A part restoring `values` (and `splices`) of the model `model` of type `type`.
    public init(model: ModelID, type: String, values: [String: JSONValue], splices: [String: Splice]? = nil) {
      self.model = model
      self.type = type
      self.values = values
      self.splices = splices
    }
  }

  /// How to turn an array of models back into what it was: replace `remove` elements at
  /// `at` with `insert` (the models that were there, as their state encodes them). Applied
  /// only to an array of `count` elements, the count it had when the step was kept.
  ///
  /// ```swift
  /// // Undoing an append to a list of three: remove the fourth element.
  /// let splice = UndoStep.Splice(at: 3, remove: 1, count: 4, insert: [])
  /// ```
  public struct Splice: Sendable, Hashable, Codable {
    public var at: Int
    public var remove: Int
    public var count: Int
    public var insert: [JSONValue]

    /// A splice replacing `remove` elements at `at` of an array of `count` with `insert`.
    public init(at: Int, remove: Int, count: Int, insert: [JSONValue]) {
      self.at = at
      self.remove = remove
      self.count = count
      self.insert = insert
    }
  }

  /// The models the step restores, in the order they were changed.
  public var parts: [Part]

  /// A step restoring `parts`.
  public init(parts: [Part]) { self.parts = parts }
}

/// What one committed revision did to a tree's undo history: a host journals it with the
/// revision (`ChangeSet.undoHistory`), so that replaying the journal rebuilds the history.
///
/// ```swift
/// var history = UndoHistory()
/// for change in changeSet.undoHistory { history.apply(change) }
/// ```
public enum UndoHistoryChange: Sendable, Hashable {
  /// A new step to undo, the values before the revision; the steps to redo are dropped, and
  /// the oldest steps beyond `limit`.
  case recorded(UndoStep, limit: Int)
  /// The newest step was undone by the revision; `redo` (the values before it) is now the
  /// newest step to redo.
  case undone(redo: UndoStep)
  /// The newest undone step was redone by the revision; `undo` is now the newest step to
  /// undo.
  case redone(undo: UndoStep)
  /// Every step was forgotten (`ModelUndoStack.removeAll()`).
  case cleared
}

/// A tree's undo history as JSON: the steps to undo and to redo, oldest first.
///
/// ```swift
/// let history = anchor.undoHistory        // kept by a daemon with its journal
/// anchor.keepUndoHistory(restoring: history, limit: 100)  // after a restart
/// ```
public struct UndoHistory: Sendable, Hashable, Codable {
  /// The steps that can be undone, oldest first.
  public var undo: [UndoStep]
  /// The steps that can be redone, oldest first (the last is redone first).
  public var redo: [UndoStep]

  /// A history of `undo` and `redo` steps; empty by default.
  public init(undo: [UndoStep] = [], redo: [UndoStep] = []) {
    self.undo = undo
    self.redo = redo
  }

  /// Whether there is nothing to undo or redo.
  public var isEmpty: Bool { undo.isEmpty && redo.isEmpty }

  /// Applies what a revision did, as the tree's `ModelUndoStack` did it.
  ///
  /// ```swift
  /// history.apply(.recorded(step, limit: 100))
  /// ```
  public mutating func apply(_ change: UndoHistoryChange) {
    switch change {
    case .recorded(let step, let limit):
      undo.append(step)
      if undo.count > max(1, limit) { undo.removeFirst(undo.count - max(1, limit)) }
      redo = []
    case .undone(let step):
      if !undo.isEmpty { undo.removeLast() }
      redo.append(step)
    case .redone(let step):
      if !redo.isEmpty { redo.removeLast() }
      undo.append(step)
    case .cleared:
      undo = []
      redo = []
    }
  }
}
