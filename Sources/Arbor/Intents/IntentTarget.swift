import ArborJSON

/// The model an intent is called on: by its path from the root (a JSON Pointer such as
/// `/counters/0/counter`), or by its stable id, which survives reordering.
///
/// ```swift
/// let byPath = IntentTarget.path("/counters/0/counter")
/// let byID = IntentTarget.id(counter.id)
/// ```
public enum IntentTarget: Sendable, Hashable, CustomStringConvertible {
  case path(String)
  case id(ModelID)

  /// The root of the tree.
  public static let root = IntentTarget.path("")

  public var description: String {
    switch self {
    case .path(let path): return "at '\(path)'"
    case .id(let id): return "with id \(id)"
    }
  }

  /// The target as a client spells it: the JSON Pointer, or the id.
  ///
  /// ```swift
  /// IntentTarget.path("/counters/0/counter").spelling   // "/counters/0/counter"
  /// ```
  public var spelling: String {
    switch self {
    case .path(let path): return path
    case .id(let id): return "\(id)"
    }
  }
}

extension Model {
  /// The model at `target` in the tree rooted at this model, or nil.
  func model(at target: IntentTarget) throws -> (any Model)? {
    switch target {
    case .path(let text):
      if text.isEmpty { return self }
      let start = _$anyContext
      // A tree's root keeps the paths it resolved while the tree's structure is unchanged.
      if let tree = start.tree {
        let cached: CachedTarget = tree.lock.withLock {
          guard start.isTreeRoot, let context = tree.pathCache.context(at: text, generation: tree.structureGeneration) else {
            return .miss
          }
          return .hit(context === start ? self : tree.model(withID: context.id))
        }
        if case .hit(let model?) = cached { return model }
      }
      let pointer: JSONPointer
      do { pointer = try JSONPointer(text) } catch { throw IntentError.unknownTarget("at '\(text)': \(error)") }
      return descendant(at: pointer.tokens[...], path: text)
    case .id(let id):
      return descendant(withID: id)
    }
  }

  private func descendant(at tokens: ArraySlice<String>, path: String) -> (any Model)? {
    guard !tokens.isEmpty else { return self }
    let start = _$anyContext
    // Anchored: the tree's child tables say where each child sits, so the walk reads one
    // table per step instead of visiting the property's values.
    if let tree = start.tree {
      return tree.lock.withLock {
        guard let found = ChildPath.context(at: tokens, below: start) else { return nil }
        if start.isTreeRoot { tree.pathCache.remember(found, at: path, generation: tree.structureGeneration) }
        return found === start ? self : tree.model(withID: found.id)
      }
    }
    return visitedDescendant(at: tokens)
  }

  /// Before anchoring: the named property's children are visited.
  private func visitedDescendant(at tokens: ArraySlice<String>) -> (any Model)? {
    guard let first = tokens.first else { return self }
    let rest = tokens.dropFirst()
    guard let property = (0..<Self._$propertyCount).first(where: { Self._$propertyName($0) == first }) else { return nil }
    let context = _$modelContext
    let found = context.withLock {
      var visitor = ModelVisitor()
      visitor.lookingFor = rest.first
      context.visitChildren(property: property, into: &visitor)
      return visitor.found
    }
    for entry in found where ChildPath.tokens(rest, startWith: entry.components) {
      return entry.model.visitedDescendant(at: rest.dropFirst(entry.components.count))
    }
    return nil
  }

  /// The model with `id` in this model's tree: the root itself, or a lookup in the tree's
  /// index of anchored models (no walk). Before anchoring, nothing.
  private func descendant(withID id: ModelID) -> (any Model)? {
    let context = _$anyContext
    if context.id == id { return self }
    guard let tree = context.tree else { return nil }
    return tree.lock.withLock { tree.model(withID: id) }
  }
}

/// What the tree's path cache held for a target path.
private enum CachedTarget {
  case miss
  case hit((any Model)?)
}
