/// What the descriptors of every kind of key (``ContextStorage``, ``ModelValueStorage``,
/// ``PreferenceStorage``) have in common: a default value, and where the runtime keeps the
/// values of the key a property of their namespace declares.
protocol KeyDescriptor: Sendable {
  associatedtype Value: Sendable
  /// The value read when no model (on the key's path) has set one.
  var defaultValue: Value { get }
  /// Where the runtime keeps the values of the key declared at `keyPath`.
  func storageKey(_ keyPath: AnyHashable) -> StorageKey
}

extension StorageKey {
  /// Where the values of a key that flows as `propagation` says are kept.
  init(_ keyPath: AnyHashable, name: String, propagation: ContextPropagation) {
    switch propagation {
    case .local: self = .local(keyPath, name: name)
    case .environment: self = .environment(keyPath, name: name)
    }
  }
}

extension AnyModelContext {
  /// The descriptor `key` declares in `keys`, and where its values are kept. Runs the
  /// declaring property (user code): call it before taking the lock.
  @inline(__always)
  final func resolve<Keys, Descriptor: KeyDescriptor>(
    _ key: KeyPath<Keys, Descriptor>, in keys: Keys
  ) -> (descriptor: Descriptor, storageKey: StorageKey) {
    let descriptor = keys[keyPath: key]
    return (descriptor, descriptor.storageKey(key))
  }

  /// The value of `key` this model reads: its own, for environment keys the nearest
  /// ancestor's, else the key's default value. Observable.
  final func value<Keys, Descriptor: KeyDescriptor>(of key: KeyPath<Keys, Descriptor>, in keys: Keys) -> Descriptor.Value {
    let (descriptor, storageKey) = resolve(key, in: keys)
    return (readStorage(storageKey) as? Descriptor.Value) ?? descriptor.defaultValue
  }

  /// Sets this model's own value of `key`.
  final func setValue<Keys, Descriptor: KeyDescriptor>(_ value: Descriptor.Value, of key: KeyPath<Keys, Descriptor>, in keys: Keys) {
    writeStorage(resolve(key, in: keys).storageKey, value)
  }

  /// Removes this model's own value of `key`.
  final func removeValue<Keys, Descriptor: KeyDescriptor>(of key: KeyPath<Keys, Descriptor>, in keys: Keys) {
    writeStorage(resolve(key, in: keys).storageKey, nil)
  }
}
