extension AnyModelContext {
  /// Whether `changeSet` changed this model or a model below it, at any of the places this
  /// model has now. Takes the lock; called by change-set listeners, after the commit.
  final func isTouched(by changeSet: ChangeSet) -> Bool {
    let places = withLock { pathsFromRoot() }.map(\.description)
    guard !places.isEmpty else { return false }
    return changeSet.changes.contains { change in
      change.paths.contains { path in
        let changed = path.description
        return places.contains { place in place.isEmpty || changed == place || changed.hasPrefix(place + "/") }
      }
    }
  }
}
