/// The models anchored since the last commit, parents first, which the commit activates
/// once the lock is released. While activation is **held** (a tree restored ahead of its
/// turn, see ``ModelAnchor/activate()``) they stay here across commits, and none runs.
/// Guarded by the tree lock.
struct PendingActivations {
  private var models: [any Model] = []
  /// The models wait across commits until ``release()``.
  private(set) var isHeld = false

  var isEmpty: Bool { models.isEmpty }
  var count: Int { models.count }

  mutating func append(_ model: any Model) { models.append(model) }
  mutating func reserveCapacity(_ capacity: Int) { models.reserveCapacity(capacity) }
  mutating func removeAll() { models = [] }
  mutating func hold() { isHeld = true }

  /// The models a commit activates now, those still anchored; nil while held.
  mutating func take() -> [any Model]? {
    guard !isHeld, !models.isEmpty else { return nil }
    defer { models = [] }
    return models.filter { $0._$anyContext.lifetime == .anchored }
  }

  /// Ends the hold: what waited is taken for activation.
  mutating func release() -> [any Model] {
    isHeld = false
    return take() ?? []
  }
}
