import ArborRPC

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
  /// The model's path from the root when the change was made.
  public let path: ModelPath
  /// The name of the property that changed.
  public let property: String
  /// What happened.
  public let operation: Operation
  /// The new value as JSON, encoded when the change was made (so later changes in the same
  /// transaction do not show through); `nil` for removals and for values that are not
  /// state (not `Codable`).
  public let value: JSONValue?

  init(modelID: ModelID, modelType: String, path: ModelPath, property: String, operation: Operation) {
    self.modelID = modelID
    self.modelType = modelType
    self.path = path
    self.property = property
    self.operation = operation
    switch operation {
    case .set(let value), .insert(_, let value): self.value = Self.encode(value)
    case .remove: self.value = nil
    }
  }

  private static func encode(_ value: any Sendable) -> JSONValue? {
    guard let encodable = value as? any Encodable else { return nil }
    return try? JSONValueEncoder().encode(encodable)
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
}
