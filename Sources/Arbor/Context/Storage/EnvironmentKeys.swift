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
public struct EnvironmentKeys: PropagatingKeys {
  public static var propagation: ContextPropagation { .environment }
  public init() {}
}

/// The descriptor of one environment key: the value read when neither the model nor any
/// ancestor has set one.
///
/// ```swift
/// extension EnvironmentKeys {
///   var isLoggedIn: EnvironmentStorage<Bool> { .init(defaultValue: false) }
/// }
/// ```
public typealias EnvironmentStorage<Value: Sendable> = KeyStorage<EnvironmentKeys, Value>

/// A model's environment keys as properties (`node.environment`): a read walks up to the
/// nearest model that set the key; a write sets it for the model and its descendants.
///
/// ```swift
/// node.environment.isLoggedIn = true
/// ```
public typealias ModelEnvironment<M: Model> = ModelKeyValues<M, EnvironmentKeys>

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
