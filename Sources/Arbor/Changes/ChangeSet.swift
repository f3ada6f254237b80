import ArborJSON

/// One change in a committed transaction: which model, which property, what happened.
///
/// Paths are taken when the change is made, so applying the changes of a ``ChangeSet`` in
/// order to the state of the previous revision gives the state of this one.
public struct Change: Sendable {
  /// What happened to the property.
  public enum Operation: Sendable {
    /// The property was assigned a new value.
    case set(any Sendable)
    /// A model was inserted into the array-like property at `index`.
    case insert(index: Int, value: any Sendable)
    /// The element at `index` of the array-like property was removed.
    case remove(index: Int)
  }

  /// The identity of the model whose property changed.
  public let modelID: ModelID
  /// The model's type name, e.g. `CounterModel`.
  public let modelType: String
  /// The model's path from the root when the change was made (its first place, when it
  /// is shared).
  public var path: ModelPath { paths[0] }
  /// Every place the model occupied when the change was made: one path, or several for a
  /// model shared between places. The patch has one operation per place.
  public let paths: [ModelPath]
  /// The name of the property that changed.
  public let property: String
  /// What happened.
  public let operation: Operation
  /// The new value as JSON, encoded when the change was made (so later changes in the same
  /// transaction do not show through); `nil` for removals, for values that are not state
  /// (not `Codable`), for values that could not be encoded (see ``encodingError``), and for
  /// writes of a container of models described by their smallest edits instead.
  public let value: JSONValue?
  /// For a write of a property that holds models in a dictionary, an optional or a
  /// `@ModelContainer` value: the operations that turn the old value into the new one,
  /// relative to the property (their pointers start below it). The models inside are
  /// compared by identity: a model still in its place is not rewritten.
  let edits: [JSONPatchOperation]?
  /// Why the new value could not be encoded as JSON, when it could not. Such a change has
  /// no operation in the patch; its ``ChangeSet`` is not ``ChangeSet/isExact``, and the
  /// write was reported as an issue.
  public let encodingError: String?

  init(modelID: ModelID, modelType: String, paths: [ModelPath], property: String, operation: Operation) {
    self.modelID = modelID
    self.modelType = modelType
    self.paths = paths
    self.property = property
    self.operation = operation
    self.edits = nil
    switch operation {
    case .set(let value), .insert(_, let value):
      switch Self.encode(value) {
      case .success(let json):
        self.value = json
        self.encodingError = nil
      case .failure(let error):
        self.value = nil
        self.encodingError = error.description
      }
    case .remove:
      self.value = nil
      self.encodingError = nil
    }
  }

  /// A container write described by its edits (or by the reason they could not be made).
  init(modelID: ModelID, modelType: String, paths: [ModelPath], property: String, value: any Sendable, edits: Result<[JSONPatchOperation], ChangeEncodingError>) {
    self.modelID = modelID
    self.modelType = modelType
    self.paths = paths
    self.property = property
    self.operation = .set(value)
    self.value = nil
    switch edits {
    case .success(let edits):
      self.edits = edits
      self.encodingError = nil
    case .failure(let error):
      self.edits = nil
      self.encodingError = error.description
    }
  }

  /// `value` as JSON; nil (success) when it is not state.
  private static func encode(_ value: any Sendable) -> Result<JSONValue?, ChangeEncodingError> {
    guard let encodable = value as? any Encodable else { return .success(nil) }
    do {
      return .success(try JSONValueEncoder().encode(encodable))
    } catch {
      return .failure(ChangeEncodingError(error))
    }
  }

  /// The path of the value that changed: the model's path, the property, and for inserts
  /// and removals the index.
  public var valuePath: ModelPath {
    switch operation {
    case .set: return path.appending(.property(property))
    case .insert(let index, _), .remove(let index): return path.appending(.property(property), .index(index))
    }
  }
}

/// The changes of one committed transaction, and the revision it produced.
///
/// ```swift
/// for await changeSet in anchor.changeSets() {
///   for change in changeSet.changes { print(changeSet.revision, change.valuePath) }
/// }
/// ```
public struct ChangeSet: Sendable {
  /// The tree's revision after this transaction. Consecutive change sets have consecutive
  /// revisions.
  public let revision: UInt64
  /// The changes, in the order they were made.
  public let changes: [Change]
  /// The intent that made the revision, when the transaction ran inside one.
  public let cause: ChangeCause?

  /// The patch, built the first time someone asks: a daemon's listeners (the watch hub,
  /// the journal) share one copy instead of each building it.
  let patchCache = PatchCache()

  /// Who committed it, while streams of modifications need to know (their own writes).
  let origin: ModificationOrigin?

  /// What the transaction did to the tree's undo history, when a host keeps it
  /// (``ModelAnchor/keepUndoHistory(restoring:limit:)``); empty otherwise. A daemon journals
  /// it with the revision, so that undo and redo survive a restart.
  public let undoHistory: [UndoHistoryChange]

  init(
    revision: UInt64, changes: [Change], cause: ChangeCause? = nil, origin: ModificationOrigin? = nil,
    undoHistory: [UndoHistoryChange] = []
  ) {
    self.revision = revision
    self.changes = changes
    self.cause = cause
    self.origin = origin
    self.undoHistory = undoHistory
  }

  /// Whether every change could be encoded, so that ``patch`` reproduces the new state.
  /// A change set that is not exact was reported as an issue when the write was made; a
  /// watcher should re-read the state.
  public var isExact: Bool { changes.allSatisfy { $0.encodingError == nil } }
}

/// Why a value written to a tree could not be encoded as JSON.
struct ChangeEncodingError: Error, CustomStringConvertible {
  let description: String

  init(description: String) { self.description = description }

  init(_ error: any Error) {
    if let error = error as? EncodingError, case .invalidValue(_, let context) = error {
      let path = context.codingPath.map(\.stringValue).joined(separator: "/")
      description = path.isEmpty ? context.debugDescription : "at '\(path)': \(context.debugDescription)"
    } else {
      description = "\(error)"
    }
  }
}
