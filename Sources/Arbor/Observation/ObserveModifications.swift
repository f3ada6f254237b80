/// The stream of ``Model/observeModifications(scope:kinds:where:)``: one element per
/// committed transaction that modified something it selects.
///
/// ```swift
/// for await _ in document.observeModifications(kinds: .properties) {
///   await autosave()
/// }
/// ```
///
/// The stream does not emit for its own writes: those of the task that iterates it, and
/// those made in `node.forEach`'s handler of its elements (and the tasks that handler
/// starts). An observer that sets a flag on every change runs once per outside change.
public struct ModelModifications: AsyncSequence, Sendable, ObservingModifications {
  public typealias Element = Void
  let stream: AsyncStream<Void>
  let observer: ModificationObserver

  public struct Iterator: AsyncIteratorProtocol {
    var base: AsyncStream<Void>.Iterator
    let observer: ModificationObserver

    public mutating func next() async -> Void? {
      observer.iterating()
      return await base.next()
    }
  }

  public func makeAsyncIterator() -> Iterator { Iterator(base: stream.makeAsyncIterator(), observer: observer) }
}

extension Model {
  /// Emits once for every committed transaction that modified this model or the models
  /// around it that `scope` selects, in one of `kinds`, on a model whose type `where`
  /// accepts — without naming a property. A `node.transaction` with many writes is one
  /// emission; emissions a consumer has not taken yet are coalesced into one.
  ///
  /// ```swift
  /// func onActivate() {
  ///   node.forEach(observeModifications(kinds: .properties)) { _ in
  ///     hasUnsavedChanges = true
  ///   }
  /// }
  /// ```
  ///
  /// - Parameters:
  ///   - scope: `.self`, `.children` and `.descendants`, combined (default: the model and
  ///     its whole subtree). Models used as dependencies count only with
  ///     `.dependencies`; other relations are ignored.
  ///   - kinds: which modifications count (default: all). Writes to local storage
  ///     (`node.local`) never count, and writes to properties excluded with
  ///     `node.excludeFromModifications` do not count as `.properties`.
  ///   - where: called with the type of each modified model in scope; only modifications
  ///     of models it accepts count (default: all). It runs outside the tree's lock.
  ///
  /// A parent-relationship modification belongs to the model that gained or lost a
  /// parent: adding a child to a model in scope is one, and so is removing one.
  ///
  /// Ends when the iterating task is cancelled; a model that is not anchored yet emits
  /// nothing and ends at once.
  public func observeModifications(
    scope: ModelRelation = [.self, .descendants],
    kinds: ModificationKinds = .all,
    where predicate: (@Sendable (any Model.Type) -> Bool)? = nil
  ) -> ModelModifications {
    let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    let observer = ModificationObserver()
    let context = _$modelContext
    guard let tree = context.tree else {
      continuation.finish()
      return ModelModifications(stream: stream, observer: observer)
    }
    let filter = ModificationFilter(scope: scope, kinds: kinds, predicate: predicate)
    // Weak: the tap lives in the tree, which the context keeps alive.
    let tap = tree.fanOut.tapModifications(notingOrigins: true) { [weak context] batch in
      guard let context, !observer.owns(batch.origin), filter.selects(batch, around: context) else { return }
      continuation.yield()
    }
    continuation.onTermination = { _ in withExtendedLifetime(tap) {} }
    return ModelModifications(stream: stream, observer: observer)
  }
}
