import ArborLocking
/// The models decoded so far in one decoding pass, by id: a model that appears more than
/// once in a snapshot (a shared model) is decoded once and shared again.
///
/// Restoring a snapshot installs one under ``CodingUserInfoKey/arborDecodedModels``;
/// without it every occurrence decodes as a model of its own.
public final class DecodedModels: Sendable {
  /// The contexts by id. A `Dictionary` hashed each id with SipHash and rehashed every
  /// entry as it doubled: a fifth of a restored model's decoding.
  private let contexts = LockedState(DecodedContextTable())
  /// The live models a decode may reuse (an undo step decoded into a running tree), and
  /// the states they had when first handed out: a generated `init(from:)` writes the
  /// decoded values of a reused model into its context, and ``putBackLiveStates()`` undoes
  /// that. Nil for a plain decode.
  private let live: (@Sendable (ModelID) -> AnyModelContext?)?
  private let handedOut = LockedState<[(AnyModelContext, any Sendable)]>([])

  public init() { live = nil }

  /// A decode into a running tree: a model whose id `live` knows is that model, not a copy.
  /// The tree's lock is held for the whole decode and until ``putBackLiveStates()``.
  init(live: @escaping @Sendable (ModelID) -> AnyModelContext?) { self.live = live }

  /// The context decoded before for `made`'s id; nil when there is none, and `made` is
  /// remembered for that id.
  @usableFromInline
  func existing(orInsert made: AnyModelContext) -> AnyModelContext? {
    let id = made.id
    if live == nil {
      return contexts.withLock { contexts in
        if let found = contexts[id] { return found }
        contexts.insert(made)
        return nil
      }
    }
    if let found = contexts.withLock({ $0[id] }) { return found }
    if let live, let context = live(id) {
      let state = context.anyStateCopy()
      contexts.withLock { $0.insert(context) }
      handedOut.withLock { $0.append((context, state)) }
      return context
    }
    contexts.withLock { $0.insert(made) }
    return nil
  }

  /// Puts back the state of every live model the decode reused. Tree lock held.
  func putBackLiveStates() {
    for (context, state) in handedOut.withLock({ $0 }) { context.replaceAnyState(state) }
  }

  /// The number of distinct models decoded.
  public var count: Int { contexts.withLock { $0.count } }
}

extension CodingUserInfoKey {
  /// Where a decoder finds its ``DecodedModels``.
  public static let arborDecodedModels = CodingUserInfoKey(rawValue: "org.arbor.decodedModels")!
}
