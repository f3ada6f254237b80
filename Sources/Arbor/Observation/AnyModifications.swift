/// The stream of ``Model/observeAnyModification()``: one element per committed transaction
/// that changed the model or anything below it.
public struct AnyModifications: AsyncSequence, Sendable {
  public typealias Element = Void
  let stream: AsyncStream<Void>

  public func makeAsyncIterator() -> AsyncStream<Void>.Iterator { stream.makeAsyncIterator() }
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
    let context = _$modelContext
    guard let tree = context.tree else {
      continuation.finish()
      return AnyModifications(stream: stream)
    }
    let listener = tree.listen(limit: 100_000) { delivery in
      guard case .committed(let changeSet) = delivery else {
        // Fell behind: something changed.
        continuation.yield()
        return
      }
      // Writes of properties excluded with `node.excludeFromModifications` do not count.
      guard let relevant = context.withoutExcludedChanges(changeSet) else { return }
      if context.isTouched(by: relevant) { continuation.yield() }
    }
    continuation.onTermination = { _ in listener.cancel() }
    return AnyModifications(stream: stream)
  }
}
