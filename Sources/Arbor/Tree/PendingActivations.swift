/// The models anchored since the last commit, parents first, which the commit activates
/// once the lock is released. While activation is **held** (a tree restored ahead of its
/// turn, see ``ModelAnchor/activate()``) they stay here across commits, and none runs.
/// Guarded by the tree lock.
struct PendingActivations {
  /// Each model with its context (asking a model for its context is a witness call and a
  /// retain: at 100,000 models, a third of a tree's activation).
  private var models: [Activation] = []
  /// The models wait across commits until ``release()``.
  private(set) var isHeld = false

  var isEmpty: Bool { models.isEmpty }
  var count: Int { models.count }

  mutating func append(_ model: any Model, context: AnyModelContext) { models.append(Activation(model: model, context: context)) }
  mutating func reserveCapacity(_ capacity: Int) { models.reserveCapacity(capacity) }
  mutating func removeAll() { models = [] }
  mutating func hold() { isHeld = true }

  /// The models a commit activates now, those still anchored; nil while held.
  mutating func take() -> [Activation]? {
    guard !isHeld, !models.isEmpty else { return nil }
    defer { models = [] }
    return models.filter { $0.context.lifetime == .anchored }
  }

  /// Ends the hold: what waited is taken for activation.
  mutating func release() -> [Activation] {
    isHeld = false
    return take() ?? []
  }
}

/// A model to activate, and its context.
struct Activation {
  let model: any Model
  let context: AnyModelContext
}
