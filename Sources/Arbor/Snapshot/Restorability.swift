import ArborLocking

extension Model {
  /// The properties, in every model type a tree rooted at this type can hold, that a
  /// restore could not give a value (see ``UnrestorableProperty``): empty when the tree can
  /// be saved and restored. Snapshots and restores of the tree are refused otherwise.
  ///
  /// ```swift
  /// AppModel.unrestorableProperties        // []: children report with events
  /// GuideAppModel.unrestorableProperties   // [CounterModel.onFact (let onFact: …), …]
  /// ```
  public static var unrestorableProperties: [UnrestorableProperty] {
    let key = ObjectIdentifier(Self.self)
    if let known = unrestorablePropertiesByRoot.withLock({ $0[key] }) { return known }
    let properties = modelTypesInTree.flatMap { type in
      type._$unrestorableProperties.map { UnrestorableProperty(model: type._$typeName, name: $0.name, declaration: $0.declaration) }
    }
    unrestorablePropertiesByRoot.withLock { $0[key] = properties }
    return properties
  }

  /// Whether a tree rooted at this type can be saved and restored: no model type it can hold
  /// has an ``UnrestorableProperty``.
  ///
  /// ```swift
  /// #expect(AppModel.isRestorable)
  /// ```
  public static var isRestorable: Bool { unrestorableProperties.isEmpty }

  /// Throws ``SnapshotError/notRestorable(root:property:)`` for a tree that cannot be
  /// restored: snapshots and restores call it first.
  static func refuseUnlessRestorable() throws {
    if let property = unrestorableProperties.first {
      throw SnapshotError.notRestorable(root: _$typeName, property: property)
    }
  }
}

private let unrestorablePropertiesByRoot = LockedState<[ObjectIdentifier: [UnrestorableProperty]]>([:])

/// The `init(from:)` of a model with an ``UnrestorableProperty``: decoding it is refused
/// with an error that names the property. Used by generated code.
public func _refuseRestoring<M: Model>(_ type: M.Type, from decoder: any Decoder) throws -> M {
  let property = M._$unrestorableProperties.first.map { UnrestorableProperty(model: M._$typeName, name: $0.name, declaration: $0.declaration) }
  throw DecodingError.dataCorrupted(
    DecodingError.Context(
      codingPath: decoder.codingPath,
      debugDescription: property.map { SnapshotError.notRestorable(root: M._$typeName, property: $0).description }
        ?? "\(M._$typeName) cannot be restored"))
}
