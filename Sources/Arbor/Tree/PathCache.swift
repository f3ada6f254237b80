/// The models that intents' paths found, kept while the tree's structure is unchanged:
/// a path called again finds its model with one lookup instead of a parse and a walk.
///
/// The tree counts every change to where a model sits (a child linked, unlinked, moved or
/// destructed: ``ModelTree/structureChanged()``); a cache made at another count is
/// emptied before use. Its contexts are held unretained: at an unchanged count each is
/// still held by its parent's child table. Guarded by the tree's lock.
struct PathCache {
  private var entries: [String: Unmanaged<AnyModelContext>] = [:]
  /// The path found last, compared before the table is hashed into: clients mostly call
  /// the same model again, and comparing a path's bytes costs a tenth of hashing it.
  private var last: (path: String, context: Unmanaged<AnyModelContext>)?
  private var generation: UInt64 = 0

  /// At most this many paths are kept; one more empties the cache first.
  static let limit = 256

  /// The context found at `path` at structure count `current`, if it was found before.
  mutating func context(at path: String, generation current: UInt64) -> AnyModelContext? {
    guard generation == current else {
      if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
      last = nil
      generation = current
      return nil
    }
    if let last, last.path == path { return last.context.takeUnretainedValue() }
    guard let found = entries[path] else { return nil }
    last = (path, found)
    return found.takeUnretainedValue()
  }

  /// Keeps `context` as the model at `path`, found at structure count `current`.
  mutating func remember(_ context: AnyModelContext, at path: String, generation current: UInt64) {
    if generation != current || entries.count >= Self.limit {
      entries.removeAll(keepingCapacity: generation == current)
      generation = current
    }
    entries[path] = Unmanaged.passUnretained(context)
    last = (path, Unmanaged.passUnretained(context))
  }
}
