import Synchronization

/// The type-erased part of a model's context: its identity, its place in the tree, its
/// observers and hooks. ``ModelContext`` adds the typed state.
///
/// All mutable fields are guarded by the lock of the context's tree (or, before the model
/// is anchored, by its stripe in `StripedLocks`); `tree` is published once, atomically.
public class AnyModelContext: @unchecked Sendable {  // Sendable: fields guarded by the tree lock (see above)
  /// The model's stable identity.
  public internal(set) var id: ModelID

  @usableFromInline let treeReference = AtomicLazyReference<ModelTree>()
  var lifetime: ModelLifetime
  var parentLinks: ParentLinks = .none
  var childTable: ChildTable?
  var observers: [ObserverEntry] = []
  var hooks: ContextHooks?

  init(id: ModelID = .generate(), lifetime: ModelLifetime = .initial) {
    self.id = id
    self.lifetime = lifetime
  }

  @usableFromInline var tree: ModelTree? { treeReference.load() }

  // MARK: Type-specific behaviour, provided by ModelContext<M>.

  var typeName: String { fatalError("abstract") }
  var propertyCount: Int { fatalError("abstract") }
  func propertyName(_ index: Int) -> String { fatalError("abstract") }
  func visitChildren(property: Int, into visitor: inout ModelVisitor) { fatalError("abstract") }

  // MARK: Locking

  /// Takes the lock that guards this context: its tree's, or its stripe's before anchoring.
  @usableFromInline
  final func _lockForAccess() -> TreeLock {
    if let tree = treeReference.load() {
      tree.lock.lock()
      return tree.lock
    }
    let stripe = StripedLocks.lock(for: self)
    stripe.lock()
    if let tree = treeReference.load() {
      stripe.unlock()
      tree.lock.lock()
      return tree.lock
    }
    return stripe
  }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    let lock = _lockForAccess()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: Paths

  /// The path from the root, or nil when the model is not reachable from a root.
  /// Must be called with the lock held. Costs O(depth).
  func pathFromRoot() -> ModelPath? {
    var reversed: [PathComponent] = []
    var context = self
    var steps = 0
    while true {
      if let tree = context.tree, tree.root === context { break }
      guard let link = context.parentLinks.first else { return nil }
      for component in link.position.components.reversed() { reversed.append(component) }
      reversed.append(.property(link.parent.propertyName(link.property)))
      context = link.parent
      steps += 1
      if steps > 100_000 { return nil }  // a cycle of models: not a tree
    }
    return ModelPath(reversed.reversed())
  }
}

/// An observer registered on one property of a context.
struct ObserverEntry {
  let property: Int
  let observer: AccessObserver
}
