import ArborJSON

/// A path's walk down an anchored tree, through the child tables the tree keeps: one
/// property name, then the child's position in that property, per step.
enum ChildPath {
  /// The context at `tokens` below `start`, or nil when no model sits there. The tree's
  /// lock held.
  static func context(at tokens: ArraySlice<String>, below start: AnyModelContext) -> AnyModelContext? {
    var context = start
    var rest = tokens
    while let name = rest.first {
      rest = rest.dropFirst()
      guard let table = context.childTable,
        let property = (0..<context.propertyCount).first(where: { context.propertyName($0) == name })
      else { return nil }
      guard let (child, consumed) = child(in: table, of: context, property: property, before: rest) else { return nil }
      context = child
      rest = rest.dropFirst(consumed)
    }
    return context
  }

  /// The child of `parent`'s `property` (whose children `table` lists) whose position
  /// begins `rest`, and how many tokens its position takes; nil when none does. The tree's
  /// lock held.
  static func child(in table: ChildTable, of parent: AnyModelContext, property: Int, before rest: ArraySlice<String>) -> (AnyModelContext, Int)? {
    let children = table.children(of: property)
    // An array's child at index i is its table's i-th entry: checked, not assumed.
    if let token = rest.first, let index = JSONPointer.index(named: token), index < children.count,
      children[index].parentLinks.containsLink(parent: parent, property: property, index: index)
    {
      return (children[index], 1)
    }
    return child(in: children, of: parent, property: property, before: rest)
  }

  /// The child of `parent`'s `property` whose position begins `tokens`, and how many tokens
  /// its position takes.
  private static func child(
    in children: ContiguousArray<AnyModelContext>, of parent: AnyModelContext, property: Int, before rest: ArraySlice<String>
  ) -> (AnyModelContext, Int)? {
    for child in children {
      var consumed: Int?
      child.parentLinks.forEach { link in
        guard consumed == nil, link.parent === parent, link.property == property else { return }
        switch link.position {
        case .direct: consumed = 0
        case .index(let index): if let token = rest.first, JSONPointer.index(named: token) == index { consumed = 1 }
        case .components(let components): if Self.tokens(rest, startWith: components) { consumed = components.count }
        }
      }
      if let consumed { return (child, consumed) }
    }
    return nil
  }

  /// Whether `tokens` begin with `components`, each as its JSON Pointer token (an index as
  /// the pointer reads it), compared without making the tokens.
  static func tokens(_ tokens: ArraySlice<String>, startWith components: [PathComponent]) -> Bool {
    guard components.count <= tokens.count else { return false }
    for (component, token) in zip(components, tokens) {
      switch component {
      case .property(let name), .key(let name):
        guard name == token else { return false }
      case .index(let index):
        guard JSONPointer.index(named: token) == index else { return false }
      }
    }
    return true
  }
}
