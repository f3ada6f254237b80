/// The namespace of environment keys: values that flow from a model to all its
/// descendants. Declare a key by extending it with a computed property that returns an
/// ``EnvironmentStorage`` descriptor; read and write it through `node.environment`.
///
/// ```swift
/// extension EnvironmentKeys {
///   var theme: EnvironmentStorage<AppTheme> { .init(defaultValue: .default) }
/// }
///
/// root.node.environment.theme = .dark          // for the whole tree
/// let theme = child.node.environment.theme     // .dark, inherited
/// ```
///
/// This is SwiftModel 1.0's spelling of a ``ContextKeys`` key with
/// ``ContextPropagation/environment`` propagation.
public struct EnvironmentKeys: Sendable {
  package init() {}
}

/// The descriptor of one environment key: the value read when neither the model nor any
/// ancestor has set one.
///
/// ```swift
/// extension EnvironmentKeys {
///   var isLoggedIn: EnvironmentStorage<Bool> { .init(defaultValue: false) }
/// }
/// ```
public struct EnvironmentStorage<Value: Sendable>: Sendable {
  /// The value read when no model on the way to the root has set one.
  public let defaultValue: Value
  /// The key's name in messages: the name of the property that declares it.
  public let name: String

  /// A key whose value is `defaultValue` until a model or one of its ancestors sets it.
  ///
  /// ```swift
  /// var isLoggedIn: EnvironmentStorage<Bool> { .init(defaultValue: false) }
  /// ```
  public init(defaultValue: Value, name: String = #function) {
    self.defaultValue = defaultValue
    self.name = name
  }
}

/// A model's environment keys as properties (`node.environment`): a read walks up to the
/// nearest model that set the key; a write sets it for the model and its descendants.
///
/// ```swift
/// node.environment.isLoggedIn = true
/// ```
@dynamicMemberLookup
public struct ModelEnvironment<M: Model>: Sendable {
  let node: ModelNode<M>

  /// The value set by the model or its nearest ancestor that set one (first parent of a
  /// shared model), or the key's default value. Setting it sets it for the model's
  /// subtree, overriding an ancestor's value there. Reads are observable.
  ///
  /// ```swift
  /// let loggedIn = node.environment.isLoggedIn
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<EnvironmentKeys, EnvironmentStorage<Value>>) -> Value {
    get { node.context.read(key) }
    nonmutating set { node.context.write(key, newValue) }
  }
}

extension ModelNode {
  /// The model's environment keys: see ``ModelEnvironment``.
  ///
  /// ```swift
  /// node.environment.theme = .dark
  /// ```
  public var environment: ModelEnvironment<M> { ModelEnvironment(node: self) }

  /// Removes the model's own value of an environment key: reads go back to the nearest
  /// ancestor's value or the default.
  ///
  /// ```swift
  /// node.removeEnvironment(\.isLoggedIn)
  /// ```
  public func removeEnvironment<Value: Sendable>(_ key: KeyPath<EnvironmentKeys, EnvironmentStorage<Value>>) {
    context.write(key, nil)
  }
}

extension EnvironmentKeys: KeyNamespace {}

extension EnvironmentStorage: KeyDescriptor {
  typealias Namespace = EnvironmentKeys
  func storageKey(_ path: AnyHashable) -> StorageKey { .environment(path, name: name) }
}
