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
public struct LocalKeys: Sendable {
  package init() {}
}

/// The descriptor of one local key: the value read until the model sets one.
///
/// ```swift
/// extension LocalKeys {
///   var draft: LocalStorage<String> { .init(defaultValue: "") }
/// }
/// ```
public struct LocalStorage<Value: Sendable>: Sendable {
  /// The value read while the model has not set one.
  public let defaultValue: Value
  /// The key's name in messages: the name of the property that declares it.
  public let name: String

  /// A key whose value is `defaultValue` until the model sets it.
  ///
  /// ```swift
  /// var isEditing: LocalStorage<Bool> { .init(defaultValue: false) }
  /// ```
  public init(defaultValue: Value, name: String = #function) {
    self.defaultValue = defaultValue
    self.name = name
  }
}

/// A model's local keys as properties (`node.local`): values only the model itself sees.
///
/// ```swift
/// node.local.isEditing = true
/// ```
@dynamicMemberLookup
public struct ModelLocalValues<M: Model>: Sendable {
  let node: ModelNode<M>

  /// The model's value of the key, or the key's default value. Reads are observable (in
  /// `Observed`, `memoize`, `expect`).
  ///
  /// ```swift
  /// let editing = node.local.isEditing
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<LocalKeys, LocalStorage<Value>>) -> Value {
    get { node.context.read(key) }
    nonmutating set { node.context.write(key, newValue) }
  }
}

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

extension LocalKeys: KeyNamespace {}

extension LocalStorage: KeyDescriptor {
  typealias Namespace = LocalKeys
  func storageKey(_ path: AnyHashable) -> StorageKey { .local(path, name: name) }
}
