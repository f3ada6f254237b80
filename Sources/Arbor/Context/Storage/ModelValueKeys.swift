/// A namespace of keys whose values models keep beside their state: ``EnvironmentKeys``
/// (the values flow to the model's descendants) and ``LocalKeys`` (the model's own).
///
/// ```swift
/// #expect(EnvironmentKeys.propagation == .environment)
/// ```
public protocol ModelValueKeys: Sendable {
  /// Whether the values of the namespace's keys stay with their model or flow down.
  static var propagation: ContextPropagation { get }
}

/// The descriptor of one key of ``EnvironmentKeys`` (``EnvironmentStorage``) or
/// ``LocalKeys`` (``LocalStorage``): the value read when no model that the key's
/// propagation reaches has set one.
///
/// ```swift
/// extension EnvironmentKeys {
///   var isLoggedIn: EnvironmentStorage<Bool> { .init(defaultValue: false) }
/// }
/// extension LocalKeys {
///   var draft: LocalStorage<String> { .init(defaultValue: "") }
/// }
/// ```
public struct ModelValueStorage<Keys: ModelValueKeys, Value: Sendable>: Sendable {
  /// The value read while no model (for environment keys, none on the way to the root)
  /// has set one.
  public let defaultValue: Value
  /// The key's name in messages: the name of the property that declares it.
  public let name: String

  /// A key whose value is `defaultValue` until a model sets it.
  ///
  /// ```swift
  /// var isEditing: LocalStorage<Bool> { .init(defaultValue: false) }
  /// ```
  public init(defaultValue: Value, name: String = #function) {
    self.defaultValue = defaultValue
    self.name = name
  }
}

extension ModelValueStorage: KeyDescriptor {
  func storageKey(_ keyPath: AnyHashable) -> StorageKey {
    StorageKey(keyPath, name: name, propagation: Keys.propagation)
  }
}

/// A model's keys of one namespace as properties: `node.environment` (``ModelEnvironment``)
/// and `node.local` (``ModelLocalValues``).
///
/// ```swift
/// node.environment.isLoggedIn = true
/// node.local.isEditing = true
/// ```
@dynamicMemberLookup
public struct ModelValues<M: Model, Keys: ModelValueKeys>: Sendable {
  let node: ModelNode<M>
  let keys: Keys

  /// The model's value of the key; for an environment key, else the value of its nearest
  /// ancestor that set one (first parent of a shared model); else the key's default value.
  /// Setting it sets the model's own value (for an environment key, for its subtree,
  /// overriding an ancestor's value there). Reads are observable (in `Observed`,
  /// `memoize`, `expect`).
  ///
  /// ```swift
  /// let loggedIn = node.environment.isLoggedIn
  /// let editing = node.local.isEditing
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<Keys, ModelValueStorage<Keys, Value>>) -> Value {
    get { node.context.value(of: key, in: keys) }
    nonmutating set { node.context.setValue(newValue, of: key, in: keys) }
  }
}
