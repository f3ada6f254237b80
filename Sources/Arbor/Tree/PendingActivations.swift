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
    // Moved out, and filtered only when a model went away meanwhile: a filtered copy
    // retained and released every model and context (through their side tables) once more.
    var taken: [Activation] = []
    swap(&taken, &models)
    // Read in place (a closure over the elements copied each one).
    let allAnchored = taken.withUnsafeBufferPointer { entries in
      entries.indices.allSatisfy { entries[$0].context.lifetime == .anchored }
    }
    if !allAnchored { taken.removeAll { $0.context.lifetime != .anchored } }
    return taken
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
