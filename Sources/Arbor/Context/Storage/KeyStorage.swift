/// A namespace of keys whose values travel as ``propagation`` says: ``LocalKeys`` (each
/// model keeps its own) and ``EnvironmentKeys`` (a value flows to every descendant). Its
/// keys are computed properties that return a ``KeyStorage`` descriptor.
///
/// ```swift
/// extension EnvironmentKeys {
///   var theme: EnvironmentStorage<AppTheme> { .init(defaultValue: .default) }
/// }
/// print(EnvironmentKeys.propagation)  // environment
/// ```
public protocol PropagatingKeys: Sendable {
  /// The namespace's value, whose properties are its keys.
  init()
  /// Whether a value stays with the model that set it or flows to its descendants.
  static var propagation: ContextPropagation { get }
}

/// The descriptor of one key of a ``PropagatingKeys`` namespace: the value read while
/// neither the model nor (for ``EnvironmentKeys``) an ancestor has set one. Spelled
/// ``LocalStorage`` and ``EnvironmentStorage``.
///
/// ```swift
/// extension LocalKeys {
///   var draft: LocalStorage<String> { .init(defaultValue: "") }
/// }
/// ```
public struct KeyStorage<Namespace: PropagatingKeys, Value: Sendable>: Sendable {
  /// The value read while no model on the key's way has set one.
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

extension KeyStorage: KeyDescriptor {
  static func namespace() -> Namespace { Namespace() }

  func storageKey(_ path: AnyHashable) -> StorageKey {
    switch Namespace.propagation {
    case .local: .local(path, name: name)
    case .environment: .environment(path, name: name)
    }
  }
}
