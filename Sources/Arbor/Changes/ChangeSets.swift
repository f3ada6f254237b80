/// A live stream of the change sets a tree commits, starting right after ``startRevision``.
///
/// Every committed transaction that changed state arrives once, in order, with no gap:
/// the first element has revision `startRevision + 1`. The buffer is unbounded; consume it.
///
/// ```swift
/// let changes = model.node.changeSets()
/// model.count += 1
/// for await set in changes { print(set.revision); break }
/// ```
public struct ChangeSets: AsyncSequence, Sendable {
  public typealias Element = ChangeSet

  /// The revision of the tree when the subscription began.
  public let startRevision: UInt64
  let stream: AsyncStream<ChangeSet>

  public func makeAsyncIterator() -> AsyncStream<ChangeSet>.Iterator {
    stream.makeAsyncIterator()
  }
}
