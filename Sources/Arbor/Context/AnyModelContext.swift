import ArborJSON
import Synchronization

/// The type-erased part of a model's context: its identity, its place in the tree, its
/// observers and hooks. ``ModelContext`` adds the typed state.
///
/// All mutable fields are guarded by the lock of the context's tree (or, before the model
/// is anchored, by its stripe in `StripedLocks`); `tree` is published once, atomically.
public class AnyModelContext: @unchecked Sendable {  // Sendable: fields guarded by the tree lock (see above)
  // Every field below is guarded by the tree lock, so the dynamic exclusivity checks Swift
  // would add to class properties are redundant and are switched off.

  /// The model's stable identity.
  @exclusivity(unchecked) public internal(set) var id: ModelID

  /// The tree, published once (nil until anchored): an unmanaged, retained `ModelTree`.
  @usableFromInline let treeAddress = Atomic<UInt>(0)
  // The order of the fields below is part of a model's memory: `parentLinks` ends on a
  // single byte, and the two one-byte fields after it fill the rest of its last word
  // (declared anywhere else, each would take a word of its own).
  @exclusivity(unchecked) var parentLinks: ParentLinks = .none
  @exclusivity(unchecked) var lifetime: ModelLifetime
  /// Whether this context is the root of its tree (set once, when anchored as a root).
  @exclusivity(unchecked) var isTreeRoot = false
  @exclusivity(unchecked) var childTable: ChildTable?
  @exclusivity(unchecked) var observers: [ObserverEntry] = []
  @exclusivity(unchecked) var hooks: ContextHooks?

  init(id: ModelID = .generate(), lifetime: ModelLifetime = .initial) {
    self.id = id
    self.lifetime = lifetime
  }

  deinit {
    let address = treeAddress.load(ordering: .acquiring)
    if address != 0, isTreeRoot {
      // The last reference to a root went (a `withAnchor()` tree): tear the tree down.
      let tree = Unmanaged<ModelTree>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
      tree.tearDown(afterRootWentAway: self)
    }
    if address != 0 {
      Unmanaged<ModelTree>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).release()
    }
  }

  @usableFromInline var tree: ModelTree? {
    let address = treeAddress.load(ordering: .acquiring)
    guard address != 0 else { return nil }
    return Unmanaged<ModelTree>.fromOpaque(UnsafeRawPointer(bitPattern: address)!).takeUnretainedValue()
  }

  /// Publishes `tree` once; later calls keep the first tree.
  final func storeTreeIfNil(_ tree: ModelTree) {
    let address = UInt(bitPattern: Unmanaged.passRetained(tree).toOpaque())
    let (exchanged, _) = treeAddress.compareExchange(expected: 0, desired: address, ordering: .acquiringAndReleasing)
    if !exchanged { Unmanaged.passUnretained(tree).release() }
  }

  // MARK: Type-specific behaviour, provided by ModelContext<M>.

  var typeName: String { fatalError("abstract") }
  /// The model's type (`observeModifications(where:)` tests it).
  var modelType: any Model.Type { fatalError("abstract") }
  var propertyCount: Int { fatalError("abstract") }
  func propertyName(_ index: Int) -> String { fatalError("abstract") }
  func visitChildren(property: Int, into visitor: inout ModelVisitor) { fatalError("abstract") }
  /// A copy of the whole state (`M._$State`), for recorded states. Lock held.
  func anyStateCopy() -> any Sendable { fatalError("abstract") }
  /// The model value this context is the whole of, when the model's value holds nothing
  /// but its context (no `let`s): nil otherwise, since a `let` lives in the value only.
  func valueOfContextOnlyModel() -> (any Model)? { fatalError("abstract") }
  /// Whether ``valueOfContextOnlyModel()`` gives the value: the model has no `let`s.
  var valueIsContextOnly: Bool { fatalError("abstract") }
  /// Puts back a state taken by ``anyStateCopy()``, unrecorded. Lock held.
  func replaceAnyState(_ state: any Sendable) { fatalError("abstract") }
  /// An undo part restoring `values` (property name to JSON) of this model, decoded with
  /// `models`; nil when none of them can be decoded. Lock held.
  func undoPart(decoding part: UndoStep.Part, models: DecodedModels) -> (any UndoPart)? { fatalError("abstract") }
  /// What replaying `operation` (its path below the property's value) on `property` of
  /// this model gives, its values decoded with `models`; `pending` is the property's value
  /// left undecodable by the operations before it, if any. Lock held.
  func replayStep(_ operation: JSONPatchOperation, property: Int, pending: JSONValue?, models: DecodedModels) throws(JournalReplayError)
    -> ReplayStep
  {
    fatalError("abstract")
  }

  // MARK: Locking

  /// Takes the lock that guards this context: its tree's, or its stripe's before anchoring.
  /// The returned lock is unowned: it belongs to the tree this context keeps alive, or to
  /// the immortal stripe table.
  @usableFromInline
  final func _lockForAccess() -> Unmanaged<TreeLock> {
    if let tree = unownedTree {
      return tree._withUnsafeGuaranteedRef { $0.lockReference.locked() }
    }
    let stripe = StripedLocks.lock(for: self)
    stripe.lock()
    if let tree = unownedTree {
      stripe.unlock()
      return tree._withUnsafeGuaranteedRef { $0.lockReference.locked() }
    }
    return Unmanaged.passUnretained(stripe)
  }

  /// The tree without taking a reference to it (the context holds one).
  @inline(__always)
  final var unownedTree: Unmanaged<ModelTree>? {
    let address = treeAddress.load(ordering: .acquiring)
    guard address != 0 else { return nil }
    return Unmanaged<ModelTree>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)
  }

  func withLock<R>(_ body: () throws -> R) rethrows -> R {
    let lock = _lockForAccess()
    defer { lock.unlock() }
    return try body()
  }

  // MARK: Paths

  /// The path from the root, or nil when the model is not reachable from a root.
  /// Must be called with the lock held. Costs O(depth).
  ///
  /// A model used as a dependency has the path of its (first) host unless `inState` is
  /// true: it is not part of the tree's state, so its changes have no place in a patch.
  func pathFromRoot(inState: Bool = false) -> ModelPath? {
    var reversed: [PathComponent] = []
    var context = self
    var steps = 0
    while case .some(let link) = context.parentLinks.first {
      switch link.position {
      case .direct: break
      case .index(let index): reversed.append(.index(index))
      case .components(let components): reversed.append(contentsOf: components.reversed())
      }
      guard let parent = link.parent else { return nil }  // the parent is gone: not in a tree
      if link.property != dependencyProperty {
        reversed.append(.property(parent.propertyName(link.property)))
      } else if inState {
        return nil
      }
      context = parent
      steps += 1
      if steps > 100_000 { return nil }  // a cycle of models: not a tree
    }
    guard let tree = context.unownedTree, tree._withUnsafeGuaranteedRef({ $0.root === context }) else { return nil }
    reversed.reverse()
    return ModelPath(reversed)
  }

  /// Every path from the root to this model in the tree's state: one per place it occupies
  /// (a shared model, or a model below one, has several). Empty when the model is not part
  /// of the state. Must be called with the lock held. Costs O(depth) for an unshared chain.
  func pathsFromRoot() -> [ModelPath] {
    var paths: [ModelPath] = []
    collectPaths(below: [], into: &paths, depth: 0)
    return paths
  }

  /// Adds the paths from the root to this model, each followed by `suffix` (reversed
  /// components below this model), to `paths`.
  private final func collectPaths(below suffix: [PathComponent], into paths: inout [ModelPath], depth: Int) {
    var reversed = suffix
    // Room for a usual depth at once, rather than growing 1, 2, 4, … as components are added.
    reversed.reserveCapacity(suffix.count + 8)
    var context = self
    var steps = depth
    while true {
      steps += 1
      if steps > 100_000 { return }  // a cycle of models: not a tree
      switch context.parentLinks {
      case .none:
        guard let tree = context.unownedTree, tree._withUnsafeGuaranteedRef({ $0.root === context }) else { return }
        // Turned around in place: the path keeps this array, without a copy.
        reversed.reverse()
        paths.append(ModelPath(reversed))
        return
      case .one(let link):
        guard link.property != dependencyProperty, let parent = link.parent else { return }
        link.appendReversedComponents(to: &reversed)
        context = parent
      case .many(let links):
        for link in links where link.property != dependencyProperty {
          guard let parent = link.parent else { continue }
          var branch = reversed
          link.appendReversedComponents(to: &branch)
          parent.collectPaths(below: branch, into: &paths, depth: steps)
        }
        return
      }
    }
  }
}

/// An observer registered on one property of a context.
struct ObserverEntry {
  let property: Int
  let observer: AccessObserver
}
