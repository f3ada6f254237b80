/// A read of a model's property, as recorded by ``ReadRecording``: the model and the
/// property's name. Testers use it to tell which changes an assertion looked at.
package struct RecordedRead: Hashable, Sendable {
  package let modelID: ModelID
  package let modelType: String
  package let property: String

  package init(modelID: ModelID, modelType: String, property: String) {
    self.modelID = modelID
    self.modelType = modelType
    self.property = property
  }
}

/// Records the property reads that a synchronous closure makes, on any model of any tree,
/// the way `Observed` records its dependencies.
///
/// ```swift
/// let (passed, reads) = ReadRecording.recording { model.counters.count == 1 }
/// // reads: AppModel.counters
/// ```
package enum ReadRecording {
  package static func recording<R>(_ body: () throws -> R) rethrows -> (R, Set<RecordedRead>) {
    let observer = AccessObserver()
    defer { observer.unregisterAll() }
    let result = try AccessTracking.recording(observer, body)
    // Negative properties are memoized values (`node.memoize`), the children of a model
    // and its parents, which are not state, and storage keys (`local.isEditing`), which are
    // recorded under their names.
    let reads = observer.registrations().compactMap { context, property -> RecordedRead? in
      if property >= 0 {
        return RecordedRead(modelID: context.id, modelType: context.typeName, property: context.propertyName(property))
      }
      guard let key = context.withLock({ context.storageKey(forSlot: property) }) else { return nil }
      return RecordedRead(modelID: context.id, modelType: context.typeName, property: key.name)
    }
    return (result, Set(reads))
  }
}
