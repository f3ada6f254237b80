/// What the descriptors of every kind of key (``ContextStorage``, ``EnvironmentStorage``,
/// ``LocalStorage``, ``PreferenceStorage``) have in common: a default value, and where the
/// runtime keeps the values of the key a property of their namespace declares.
protocol KeyDescriptor: Sendable {
  associatedtype Value: Sendable
  /// The value read when no model (on the key's path) has set one.
  var defaultValue: Value { get }
  /// Where the runtime keeps the values of the key declared at `keyPath`.
  func storageKey(_ keyPath: AnyHashable) -> StorageKey
}

/// A namespace of keys (``ContextKeys``, ``EnvironmentKeys``, ``LocalKeys``,
/// ``PreferenceKeys``): its computed properties return the keys' descriptors.
protocol KeyNamespace: Sendable {
  init()
}

extension ContextKeys: KeyNamespace {}
extension EnvironmentKeys: KeyNamespace {}
extension LocalKeys: KeyNamespace {}
extension PreferenceKeys: KeyNamespace {}

extension AnyModelContext {
  /// The descriptor `key` declares, and where its values are kept. Runs the declaring
  /// property (user code): call it before taking the lock.
  @inline(__always)
  final func resolve<Keys: KeyNamespace, Descriptor: KeyDescriptor>(
    _ key: KeyPath<Keys, Descriptor>
  ) -> (descriptor: Descriptor, storageKey: StorageKey) {
    let descriptor = Keys()[keyPath: key]
    return (descriptor, descriptor.storageKey(key))
  }

  /// The value of `key` this model reads: its own, for environment keys the nearest
  /// ancestor's, else the key's default value. Observable.
  final func value<Keys: KeyNamespace, Descriptor: KeyDescriptor>(of key: KeyPath<Keys, Descriptor>) -> Descriptor.Value {
    let (descriptor, storageKey) = resolve(key)
    return (readStorage(storageKey) as? Descriptor.Value) ?? descriptor.defaultValue
  }

  /// Sets this model's own value of `key`.
  final func setValue<Keys: KeyNamespace, Descriptor: KeyDescriptor>(_ value: Descriptor.Value, of key: KeyPath<Keys, Descriptor>) {
    writeStorage(resolve(key).storageKey, value)
  }

  /// Removes this model's own value of `key`.
  final func removeValue<Keys: KeyNamespace, Descriptor: KeyDescriptor>(of key: KeyPath<Keys, Descriptor>) {
    writeStorage(resolve(key).storageKey, nil)
  }
}
