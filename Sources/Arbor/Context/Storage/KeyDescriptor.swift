/// What every spelling of a key has in common (``LocalStorage``, ``EnvironmentStorage``,
/// ``PreferenceStorage``, ``ContextStorage``): the namespace its properties extend, a
/// default value, a name, and where the runtime keeps its values. The four accessors
/// (`node.local`, `node.environment`, `node.preference`, `node.context`) read, write and
/// remove through it.
protocol KeyDescriptor<Value>: Sendable {
  associatedtype Value: Sendable
  associatedtype Namespace: KeyNamespace
  /// The value read while no model (on the propagation path) has set one.
  var defaultValue: Value { get }
  /// The key's name in messages: the name of the property that declares it.
  var name: String { get }
  /// Where the values of the key at `path` are kept.
  func storageKey(_ path: AnyHashable) -> StorageKey
}

/// A namespace of keys (``LocalKeys``, ``EnvironmentKeys``, ``PreferenceKeys``,
/// ``ContextKeys``): its keys are computed properties of an empty value.
protocol KeyNamespace: Sendable {
  init()
}

extension AnyModelContext {
  /// The descriptor at `key`: user code, so it runs before any lock is taken.
  func descriptor<Key: KeyDescriptor>(_ key: KeyPath<Key.Namespace, Key>) -> (Key, StorageKey) {
    let descriptor = Key.Namespace()[keyPath: key]
    return (descriptor, descriptor.storageKey(AnyHashable(key)))
  }

  /// The value of `key` the model sees, or the key's default value. Observable.
  func read<Key: KeyDescriptor>(_ key: KeyPath<Key.Namespace, Key>) -> Key.Value {
    let (descriptor, storageKey) = self.descriptor(key)
    return (readStorage(storageKey) as? Key.Value) ?? descriptor.defaultValue
  }

  /// Sets the model's own value of `key`, or removes it (`nil`).
  func write<Key: KeyDescriptor>(_ key: KeyPath<Key.Namespace, Key>, _ value: Key.Value?) {
    writeStorage(descriptor(key).1, value)
  }
}
