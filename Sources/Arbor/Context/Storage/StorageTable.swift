/// The first pseudo-property of context and preference values; later ones count down.
/// Memo slots count down from -1; `AnyModelContext.structureSlot` (the children of a
/// model, notified by `_didSetContainer`) is `Int.min`.
let firstStorageSlot = -1_000_000

/// Which value of a model a storage entry holds. The associated value is the key path that
/// declares the key (of ``LocalKeys``, ``EnvironmentKeys``, ``PreferenceKeys`` or
/// ``ContextKeys``).
enum StorageKey: Hashable {
  /// A value of the model itself (`node.local`, or a local `node.context` key).
  case local(AnyHashable, name: String)
  /// A value that flows to the descendants (`node.environment`, or an environment
  /// `node.context` key).
  case environment(AnyHashable, name: String)
  /// A preference contribution (`node.preference`).
  case preference(AnyHashable, name: String)

  /// The kind of value, for testers and `observeModifications`.
  var kind: StorageKind {
    switch self {
    case .local: .local
    case .environment: .environment
    case .preference: .preference
    }
  }

  /// `local.isEditing`, `environment.theme`, `preference.totalCount`: the kind, then the
  /// name of the property that declares the key.
  var name: String {
    switch self {
    case .local(_, let name), .environment(_, let name), .preference(_, let name): "\(kind.rawValue).\(name)"
    }
  }
}

/// The kinds of values a model keeps beside its state.
package enum StorageKind: String, Sendable, Hashable {
  case local, environment, preference
}

/// A model's context values and preference contributions, and the pseudo-property each has
/// for observation (made when first observed).
final class ContextStorageTable {
  // Guarded by the tree lock (or the stripe lock before anchoring), like `ContextHooks`.
  @exclusivity(unchecked) var values: [StorageKey: any Sendable] = [:]
  @exclusivity(unchecked) var slots: [StorageKey: Int] = [:]
  @exclusivity(unchecked) var nextSlot = firstStorageSlot

  func slot(for key: StorageKey) -> Int {
    if let slot = slots[key] { return slot }
    let slot = nextSlot
    nextSlot -= 1
    slots[key] = slot
    return slot
  }
}

extension AnyModelContext {
  /// The storage table, made on first use. Lock held.
  final var ensureStorage: ContextStorageTable {
    let hooks = ensureHooks
    if let storage = hooks.storage { return storage }
    let created = ContextStorageTable()
    hooks.storage = created
    return created
  }

  /// Registers the recording observer, if any, on the pseudo-property of `key`. Lock held.
  private final func trackStorageRead(_ key: StorageKey) {
    guard AccessTracking.current != nil else { return }
    _trackRead(ensureStorage.slot(for: key))
  }

  /// The value of a local key set on this model, or of an environment key set on this model
  /// or the nearest ancestor (first parent of a shared model); nil when none is set. The
  /// read depends on every model it looked at. Takes the lock.
  final func readStorage(_ key: StorageKey) -> (any Sendable)? {
    withLock {
      var current: AnyModelContext? = self
      var steps = 0
      while let context = current {
        context.trackStorageRead(key)
        if let value = context.hooks?.storage?.values[key] { return value }
        guard case .environment = key else { return nil }
        current = context.parentLinks.first?.parent
        steps += 1
        if steps > 100_000 { return nil }  // a cycle of models: not a tree
      }
      return nil
    }
  }

  /// The storage key a storage pseudo-property stands for, if `slot` is one. Lock held.
  final func storageKey(forSlot slot: Int) -> StorageKey? {
    guard slot <= firstStorageSlot, let slots = hooks?.storage?.slots else { return nil }
    return slots.first { $0.value == slot }?.key
  }

  /// The contributions to a preference key of this model and its descendants, the model
  /// first, then depth first in property order; a shared model counts once. The read
  /// depends on each model's contribution and children. Takes the lock; the reduction
  /// (user code) runs after it is released.
  final func collectPreferences(_ storageKey: StorageKey) -> [any Sendable] {
    withLock {
      let tracking = AccessTracking.current != nil
      var contributions: [any Sendable] = []
      var stack: [AnyModelContext] = [self]
      var seen: Set<ObjectIdentifier> = []
      while let context = stack.popLast() {
        guard seen.insert(ObjectIdentifier(context)).inserted else { continue }
        if tracking {
          context.trackStorageRead(storageKey)
          context._trackRead(AnyModelContext.structureSlot)
        }
        if let value = context.hooks?.storage?.values[storageKey] { contributions.append(value) }
        guard let table = context.childTable else { continue }
        for entry in table.entries.reversed() {
          for child in entry.children.reversed() { stack.append(child) }
        }
      }
      return contributions
    }
  }

  /// Sets (or with nil removes) this model's value of `key`, and wakes the observers of
  /// its pseudo-property once the write commits. Joins the transaction in progress.
  final func writeStorage(_ key: StorageKey, _ value: (any Sendable)?) {
    var scope = _beginWrite()
    if let value {
      ensureStorage.values[key] = value
    } else {
      hooks?.storage?.values.removeValue(forKey: key)
    }
    if let slot = hooks?.storage?.slots[key] { collectObservers(of: slot, into: &scope) }
    if let tree = scope.tree, lifetime == .anchored, tree.fanOut.recordsModifications {
      tree.fanOut.pendingModifications.append(.storage(self, key, value))
    }
    _endWrite(scope)
  }
}
