/// Which models, relative to one model, an event goes to or a hierarchy query visits.
///
/// Relations combine: `[.self, .descendants]` is the model and its whole subtree.
///
/// ```swift
/// node.send(AppEvent.loggedOut, to: .descendants)
/// ```
public struct ModelRelation: OptionSet, Sendable, Hashable {
  public let rawValue: Int
  public init(rawValue: Int) { self.rawValue = rawValue }

  /// The model itself.
  public static let `self` = ModelRelation(rawValue: 1 << 0)
  /// Its direct parents (a shared model has several).
  public static let parent = ModelRelation(rawValue: 1 << 1)
  /// Every ancestor, up to the root.
  public static let ancestors = ModelRelation(rawValue: 1 << 2)
  /// Its direct children.
  public static let children = ModelRelation(rawValue: 1 << 3)
  /// Every descendant.
  public static let descendants = ModelRelation(rawValue: 1 << 4)
  /// With `.children` or `.descendants`: also the models used as dependencies.
  public static let dependencies = ModelRelation(rawValue: 1 << 5)
}

extension AnyModelContext {
  /// The contexts `relation` reaches from this one, each once, nearest first. Lock held.
  final func contexts(in relation: ModelRelation) -> [AnyModelContext] {
    var result: [AnyModelContext] = []
    var seen = Set<ObjectIdentifier>()
    func add(_ context: AnyModelContext) {
      if seen.insert(ObjectIdentifier(context)).inserted { result.append(context) }
    }
    if relation.contains(.self) { add(self) }
    if relation.contains(.ancestors) || relation.contains(.parent) {
      var frontier = parentContexts
      while !frontier.isEmpty {
        var next: [AnyModelContext] = []
        for parent in frontier where !seen.contains(ObjectIdentifier(parent)) {
          add(parent)
          next.append(contentsOf: parent.parentContexts)
        }
        if !relation.contains(.ancestors) { break }
        frontier = next
      }
    }
    if relation.contains(.descendants) || relation.contains(.children) {
      let includeDependencies = relation.contains(.dependencies)
      var frontier = childContexts(includeDependencies: includeDependencies)
      while !frontier.isEmpty {
        var next: [AnyModelContext] = []
        for child in frontier where !seen.contains(ObjectIdentifier(child)) {
          add(child)
          next.append(contentsOf: child.childContexts(includeDependencies: includeDependencies))
        }
        if !relation.contains(.descendants) { break }
        frontier = next
      }
    }
    return result
  }

  final var parentContexts: [AnyModelContext] {
    switch parentLinks {
    case .none: return []
    case .one(let link): return link.parent.map { [$0] } ?? []
    case .many(let links): return links.compactMap(\.parent)
    }
  }

  final func childContexts(includeDependencies: Bool) -> [AnyModelContext] {
    guard let childTable else { return [] }
    var result: [AnyModelContext] = []
    for entry in childTable.entries where includeDependencies || entry.property >= 0 {
      result.append(contentsOf: entry.children)
    }
    return result
  }
}
