/// The stream of ``Model/observeAnyModification()``: one element per committed transaction
/// that changed the model or anything below it.
///
/// Like ``ModelModifications``, it does not emit for its own writes.
public struct AnyModifications: AsyncSequence, Sendable, ObservingModifications {
  public typealias Element = Void
  let stream: AsyncStream<Void>
  let observer: ModificationObserver

  public func makeAsyncIterator() -> ModelModifications.Iterator {
    ModelModifications.Iterator(base: stream.makeAsyncIterator(), observer: observer)
  }
}

extension Model {
  /// Emits once for every committed transaction that changed any state of this model or
  /// of its descendants (a `node.transaction` with many writes is one emission). Emissions
  /// a consumer has not taken yet are coalesced into one. Writes to properties excluded
  /// with `node.excludeFromModifications` do not count. Ends when the iterating task is
  /// cancelled; a model that is not anchored yet emits nothing and ends at once.
  ///
  /// ``observeModifications(scope:kinds:where:)`` narrows it by scope, kind and type.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.forEach(observeAnyModification()) { _ in hasUnsavedChanges = true }
  /// }
  /// ```
  public func observeAnyModification() -> AnyModifications {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let observer = ModificationObserver()
    let context = _$modelContext
    guard let tree = context.tree else {
      continuation.finish()
      return AnyModifications(stream: stream, observer: observer)
    }
    let listener = tree.listen(limit: 100_000, notingOrigins: true) { delivery in
      guard case .committed(let changeSet) = delivery else {
        // Fell behind: something changed.
        continuation.yield()
        return
      }
      // Writes of properties excluded with `node.excludeFromModifications` do not count.
      guard !observer.owns(changeSet.origin), let relevant = context.withoutExcludedChanges(changeSet) else { return }
      if context.isTouched(by: relevant) { continuation.yield() }
    }
    continuation.onTermination = { _ in listener.cancel() }
    return AnyModifications(stream: stream, observer: observer)
  }
}
