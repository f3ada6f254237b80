/// The namespace of local keys: values a model keeps for itself, beside its state. Declare
/// a key by extending it with a computed property that returns a ``LocalStorage``
/// descriptor; read and write it through `node.local`.
///
/// ```swift
/// extension LocalKeys {
///   var isEditing: LocalStorage<Bool> { .init(defaultValue: false) }
/// }
///
/// node.local.isEditing = true
/// let editing = node.local.isEditing
/// ```
///
/// This is SwiftModel 1.0's spelling of a ``ContextKeys`` key with
/// ``ContextPropagation/local`` propagation.
public struct LocalKeys: PropagatingKeys {
  public static var propagation: ContextPropagation { .local }
  public init() {}
}

/// The descriptor of one local key: the value read until the model sets one.
///
/// ```swift
/// extension LocalKeys {
///   var draft: LocalStorage<String> { .init(defaultValue: "") }
/// }
/// ```
public typealias LocalStorage<Value: Sendable> = KeyStorage<LocalKeys, Value>

/// A model's local keys as properties (`node.local`): values only the model itself sees.
///
/// ```swift
/// node.local.isEditing = true
/// ```
public typealias ModelLocalValues<M: Model> = ModelKeyValues<M, LocalKeys>

extension ModelNode {
  /// The model's local keys: see ``ModelLocalValues``.
  ///
  /// ```swift
  /// node.local.isEditing = true
  /// ```
  public var local: ModelLocalValues<M> { ModelLocalValues(node: self) }

  /// Removes the model's value of a local key: reads return the default again.
  ///
  /// ```swift
  /// node.removeLocal(\.isEditing)
  /// ```
  public func removeLocal<Value: Sendable>(_ key: KeyPath<LocalKeys, LocalStorage<Value>>) {
    context.write(key, nil)
  }
}
