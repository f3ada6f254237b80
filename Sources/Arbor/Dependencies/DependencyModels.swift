/// The property index under which a host links the models it uses as dependencies.
let dependencyProperty = -1

extension ModelTree {
  /// The tree's own instance of a model dependency, made from `source` on first use and
  /// found again by `source`'s identity, whichever key or key path reached it.
  ///
  /// A dependency's value (a `liveValue`, `testValue` or an override) is shared by every
  /// tree in the process; each tree hosts a copy of its state, so that a model belongs to
  /// one tree only.
  func instance(of source: any Model) -> any Model {
    let sourceID = source._$anyContext.id
    if let existing = dependencyModels[sourceID] { return existing }
    let instance = source._$freshCopy()
    dependencyModels[sourceID] = instance
    return instance
  }
}

extension AnyModelContext {
  /// Links this tree's instance of a model dependency under this model, anchoring and
  /// activating it on first use. Returns nil when this model is not in a tree (the value
  /// is then used as it is).
  final func hostDependencyModel(_ source: any Model) -> (any Model)? {
    let scope = _beginWrite()
    guard let tree = scope.tree, lifetime == .anchored else {
      _endWrite(scope)
      return nil
    }
    let instance = tree.instance(of: source)
    let context = instance._$anyContext
    if !context.parentLinks.contains(parent: self, property: dependencyProperty) {
      link(instance, property: dependencyProperty, position: .components([.property("dependencies"), .key(context.typeName)]), tree: tree)
      let table = childTable ?? ChildTable()
      childTable = table
      table.entries[table.slot(of: dependencyProperty)].children.append(context)
      tree.structureChanged()
    }
    _endWrite(scope)
    return instance
  }
}

extension Model {
  /// A new model with a copy of this one's state and a new identity.
  func _$freshCopy() -> any Model {
    let context = _$modelContext
    let state = context.stateCopy()
    return _$withContext(ModelContext<Self>(state: state, id: .generate(), lifetime: .initial))
  }
}
