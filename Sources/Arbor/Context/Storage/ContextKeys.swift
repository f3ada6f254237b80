/// The namespace of context keys. Declare a key by extending it with a computed property
/// that returns a ``ContextStorage`` descriptor; read and write it through `node.context`.
///
/// ```swift
/// extension ContextKeys {
///   var isFeatureEnabled: ContextStorage<Bool> {
///     .init(defaultValue: false)
///   }
/// }
///
/// node.context.isFeatureEnabled = true
/// let enabled = node.context.isFeatureEnabled
/// ```
public struct ContextKeys: Sendable {
  package init() {}
}

/// How a context value reaches other models.
///
/// ```swift
/// extension ContextKeys {
///   var colorScheme: ContextStorage<ColorScheme> {
///     .init(defaultValue: .light, propagation: .environment)
///   }
/// }
/// ```
public enum ContextPropagation: Sendable, Hashable {
  /// The value belongs to the model that set it; other models do not see it (the default).
  case local
  /// The value flows to every descendant: a read walks up to the nearest model that set
  /// it, and returns the default value if none has.
  case environment
}

/// The descriptor of one context key: its default value and its propagation.
///
/// ```swift
/// extension ContextKeys {
///   var theme: ContextStorage<AppTheme> {
///     .init(defaultValue: .default, propagation: .environment)
///   }
/// }
/// ```
public struct ContextStorage<Value: Sendable>: Sendable {
  /// The value read when no model (on the propagation path) has set one.
  public let defaultValue: Value
  /// Whether the value stays with its model or flows to its descendants.
  public let propagation: ContextPropagation
  /// The key's name in messages: the name of the property that declares it.
  public let name: String

  /// A key whose value is `defaultValue` until set, and that flows as `propagation` says.
  ///
  /// ```swift
  /// var isEditing: ContextStorage<Bool> { .init(defaultValue: false, propagation: .environment) }
  /// ```
  public init(defaultValue: Value, propagation: ContextPropagation = .local, name: String = #function) {
    self.defaultValue = defaultValue
    self.propagation = propagation
    self.name = name
  }
}

/// Gives a model's context (`node.context`) its context keys as properties.
///
/// ```swift
/// node.context.colorScheme = .dark
/// let scheme = node.context.colorScheme
/// ```
@dynamicMemberLookup
public protocol ContextValueAccess: AnyObject {}

extension AnyModelContext: ContextValueAccess {}

extension ContextValueAccess where Self: AnyModelContext {
  /// The value of a context key: the model's own, or for ``ContextPropagation/environment``
  /// keys the nearest ancestor's, or the key's default value. Setting it sets the model's
  /// own value. Reads are observable.
  ///
  /// ```swift
  /// parent.node.context.colorScheme = .dark
  /// #expect(child.node.context.colorScheme == .dark)
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<ContextKeys, ContextStorage<Value>>) -> Value {
    get { read(key) }
    set { write(key, newValue) }
  }
}

extension ModelNode {
  /// Removes the model's own value of a context key: reads go back to the nearest
  /// ancestor's value (for ``ContextPropagation/environment`` keys) or the default.
  ///
  /// ```swift
  /// node.removeContext(\.colorScheme)
  /// ```
  public func removeContext<Value: Sendable>(_ key: KeyPath<ContextKeys, ContextStorage<Value>>) {
    context.write(key, nil)
  }
}

extension ContextKeys: KeyNamespace {}

extension ContextStorage: KeyDescriptor {
  typealias Namespace = ContextKeys
  /// With the model, or flowing down, as ``propagation`` says.
  func storageKey(_ path: AnyHashable) -> StorageKey {
    switch propagation {
    case .local: .local(path, name: name)
    case .environment: .environment(path, name: name)
    }
  }
}
