/// Where a child model sits inside one property of its parent.
@usableFromInline
enum ChildPosition {
  /// The property holds the child directly (a single or optional child).
  case direct
  /// The property is an array-like container; the child is at this index.
  case index(Int)
  /// Any other container: the components below the property.
  case components([PathComponent])

  @usableFromInline
  init(_ components: [PathComponent]) {
    switch components.count {
    case 0: self = .direct
    case 1:
      if case .index(let index) = components[0] { self = .index(index) } else { self = .components(components) }
    default: self = .components(components)
    }
  }

  var components: [PathComponent] {
    switch self {
    case .direct: return []
    case .index(let index): return [.index(index)]
    case .components(let components): return components
    }
  }
}

/// A child's reference to one place it occupies in a parent.
///
/// `parent` is weak: a parent holds its children (through its child table), never the
/// other way round, so a child that outlives its parent (a model value kept after its tree
/// went) finds no parent instead of reading freed memory.
struct ParentLink {
  weak var parent: AnyModelContext?
  let property: Int
  var position: ChildPosition

  init(parent: AnyModelContext, property: Int, position: ChildPosition) {
    self.parent = parent
    self.property = property
    self.position = position
  }

  /// Appends this link's path components (position, then property) in reverse order.
  func appendReversedComponents(to reversed: inout [PathComponent]) {
    switch position {
    case .direct: break
    case .index(let index): reversed.append(.index(index))
    case .components(let components): reversed.append(contentsOf: components.reversed())
    }
    reversed.append(.property(parent?.propertyName(property) ?? ""))
  }
}

/// The places a model occupies: none, one (the common case, no allocation) or several
/// (a shared model).
enum ParentLinks {
  case none
  case one(ParentLink)
  case many([ParentLink])

  var isEmpty: Bool {
    if case .none = self { return true }
    return false
  }

  var first: ParentLink? {
    switch self {
    case .none: return nil
    case .one(let link): return link
    case .many(let links): return links.first
    }
  }

  /// Calls `body` with each link, in order.
  func forEach(_ body: (ParentLink) throws -> Void) rethrows {
    switch self {
    case .none: return
    case .one(let link): try body(link)
    case .many(let links): for link in links { try body(link) }
    }
  }

  func contains(parent: AnyModelContext, property: Int) -> Bool {
    switch self {
    case .none: return false
    case .one(let link): return link.parent === parent && link.property == property
    case .many(let links): return links.contains { $0.parent === parent && $0.property == property }
    }
  }

  /// Whether a link puts this model at array index `index` of `property` of `parent`.
  func containsLink(parent: AnyModelContext, property: Int, index: Int) -> Bool {
    func matches(_ link: ParentLink) -> Bool {
      guard link.parent === parent, link.property == property, case .index(let position) = link.position else { return false }
      return position == index
    }
    switch self {
    case .none: return false
    case .one(let link): return matches(link)
    case .many(let links): return links.contains(where: matches)
    }
  }

  mutating func append(_ link: ParentLink) {
    switch self {
    case .none: self = .one(link)
    case .one(let existing): self = .many([existing, link])
    case .many(var links):
      self = .none
      links.append(link)
      self = .many(links)
    }
  }

  /// Removes every link to `property` of `parent`; returns how many were removed.
  @discardableResult
  mutating func removeAll(parent: AnyModelContext, property: Int) -> Int {
    switch self {
    case .none: return 0
    case .one(let link):
      guard link.parent === parent && link.property == property else { return 0 }
      self = .none
      return 1
    case .many(var links):
      self = .none
      let before = links.count
      links.removeAll { $0.parent === parent && $0.property == property }
      self = links.isEmpty ? .none : links.count == 1 ? .one(links[0]) : .many(links)
      return before - links.count
    }
  }

  /// Removes the links whose parent is gone; returns how many were removed.
  @discardableResult
  mutating func removeOrphaned() -> Int {
    switch self {
    case .none: return 0
    case .one(let link):
      guard link.parent == nil else { return 0 }
      self = .none
      return 1
    case .many(var links):
      self = .none
      let before = links.count
      links.removeAll { $0.parent == nil }
      self = links.isEmpty ? .none : links.count == 1 ? .one(links[0]) : .many(links)
      return before - links.count
    }
  }

  /// Removes the link to `property` of `parent` at array index `index`.
  mutating func remove(parent: AnyModelContext, property: Int, index: Int) {
    func matches(_ link: ParentLink) -> Bool {
      guard link.parent === parent && link.property == property else { return false }
      if case .index(let position) = link.position { return position == index }
      return false
    }
    switch self {
    case .none: return
    case .one(let link): if matches(link) { self = .none }
    case .many(var links):
      self = .none
      if let found = links.firstIndex(where: matches) { links.remove(at: found) }
      self = links.isEmpty ? .none : links.count == 1 ? .one(links[0]) : .many(links)
    }
  }
}

/// The children of a model, per property, in the order the property holds them.
///
/// Holds the child contexts strongly: a removed child stays alive until its deactivation
/// has run, outside the tree lock.
final class ChildTable {
  // Guarded by the tree lock; Swift's dynamic exclusivity check would be redundant.
  @exclusivity(unchecked) var entries: [(property: Int, children: ContiguousArray<AnyModelContext>)] = []

  func children(of property: Int) -> ContiguousArray<AnyModelContext> {
    for entry in entries where entry.property == property { return entry.children }
    return []
  }

  func slot(of property: Int) -> Int {
    if let index = entries.firstIndex(where: { $0.property == property }) { return index }
    entries.append((property, []))
    return entries.count - 1
  }
}
