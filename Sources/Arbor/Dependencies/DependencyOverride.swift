import Dependencies

/// The dependency changes a model was given with `withDependencies`, as one object.
///
/// The values resolved through an override are cached on its model while the same object is
/// in force: a later `withDependencies` makes a new one, so a resolution that ran while the
/// override was being replaced does not cache stale values.
final class DependencyOverride: Sendable {
  let apply: @Sendable (inout DependencyValues) -> Void

  init(_ apply: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.apply = apply
  }

  /// This override followed by `update`.
  func then(_ update: @escaping @Sendable (inout DependencyValues) -> Void) -> DependencyOverride {
    let previous = apply
    return DependencyOverride { values in
      previous(&values)
      update(&values)
    }
  }
}
