/// The namespace of preference keys. Declare a key by extending it with a computed
/// property that returns a ``PreferenceStorage`` descriptor; each model writes its own
/// contribution through `node.preference`, and a read returns the reduction of the
/// contributions of the model and all its descendants.
///
/// ```swift
/// extension PreferenceKeys {
///   var totalCount: PreferenceStorage<Int> {
///     .init(defaultValue: 0) { $0 += $1 }
///   }
/// }
///
/// node.preference.totalCount = 3
/// let total = parent.node.preference.totalCount  // sum over the subtree
/// ```
public struct PreferenceKeys: Sendable {
  package init() {}
}

/// The descriptor of one preference key: the value of a subtree without contributions,
/// and how contributions fold together.
///
/// ```swift
/// extension PreferenceKeys {
///   var hasUnsavedChanges: PreferenceStorage<Bool> {
///     .init(defaultValue: false) { $0 = $0 || $1 }
///   }
/// }
/// ```
public struct PreferenceStorage<Value: Sendable>: Sendable {
  /// The start of the reduction, and the value read when nobody in the subtree contributes.
  public let defaultValue: Value
  /// Folds one contribution into the accumulated value. Runs on the reading thread,
  /// never under a tree lock.
  public let reduce: @Sendable (inout Value, Value) -> Void
  /// The key's name in messages: the name of the property that declares it.
  public let name: String

  /// A key reduced from `defaultValue` with `reduce`, over the contributions of a model
  /// and its descendants (the model first, then its descendants depth first).
  ///
  /// ```swift
  /// var totalCount: PreferenceStorage<Int> { .init(defaultValue: 0) { $0 += $1 } }
  /// ```
  public init(defaultValue: Value, name: String = #function, reduce: @escaping @Sendable (inout Value, Value) -> Void) {
    self.defaultValue = defaultValue
    self.name = name
    self.reduce = reduce
  }
}

/// A model's preference keys as properties (`node.preference`): reading a key returns the
/// reduction over the model's subtree; setting it sets the model's own contribution.
///
/// ```swift
/// node.preference.hasUnsavedChanges = isDirty
/// let anyDirty = document.node.preference.hasUnsavedChanges
/// ```
@dynamicMemberLookup
public struct ModelPreferences<M: Model>: Sendable {
  let node: ModelNode<M>

  /// The reduction of the contributions of the model and all its descendants, or the
  /// key's default value when none contributes. Setting it sets the model's own
  /// contribution. Reads are observable: an `Observed` re-fires when a contribution
  /// changes and when a model joins or leaves the subtree.
  ///
  /// ```swift
  /// let total = node.preference.totalCount
  /// ```
  public subscript<Value: Sendable>(dynamicMember key: KeyPath<PreferenceKeys, PreferenceStorage<Value>>) -> Value {
    get {
      let (storage, storageKey) = node.context.descriptor(key)
      let contributions = node.context.collectPreferences(storageKey)
      var value = storage.defaultValue
      for case let contribution as Value in contributions { storage.reduce(&value, contribution) }
      return value
    }
    nonmutating set { node.context.write(key, newValue) }
  }
}

extension ModelNode {
  /// The model's preference keys: see ``ModelPreferences``.
  ///
  /// ```swift
  /// node.preference.totalCount = 3
  /// ```
  public var preference: ModelPreferences<M> { ModelPreferences(node: self) }

  /// Removes the model's own contribution to a preference key.
  ///
  /// ```swift
  /// node.removePreference(\.totalCount)
  /// ```
  public func removePreference<Value: Sendable>(_ key: KeyPath<PreferenceKeys, PreferenceStorage<Value>>) {
    context.write(key, nil)
  }
}

extension PreferenceKeys: KeyNamespace {}

extension PreferenceStorage: KeyDescriptor {
  typealias Namespace = PreferenceKeys
  func storageKey(_ path: AnyHashable) -> StorageKey { .preference(path, name: name) }
}
