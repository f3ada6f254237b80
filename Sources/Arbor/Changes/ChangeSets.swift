/// A live stream of the change sets a tree commits, starting right after ``startRevision``.
///
/// Every committed transaction that changed state arrives once, in order, with no gap:
/// the first element has revision `startRevision + 1`. The subscription ends when the last
/// copy of this value and its iterators are gone.
///
/// Bounded: when the consumer falls `limit` change sets behind, they are dropped and the
/// stream ends with ``SubscriptionError/overflow(limit:)``; subscribe again and re-read the
/// state. One task iterates at a time; a second task waiting at the same time gets
/// ``SubscriptionError/concurrentConsumers``.
///
/// ```swift
/// let changes = model.node.changeSets()!
/// model.count += 1
/// for try await set in changes { print(set.revision); break }
/// ```
public struct ChangeSets: AsyncSequence, Sendable {
  public typealias Element = ChangeSet
  public typealias Failure = SubscriptionError

  /// The revision of the tree when the subscription began.
  public let startRevision: UInt64
  let handle: SubscriptionHandle<ChangeSet>

  public func makeAsyncIterator() -> SubscriptionIterator<ChangeSet> {
    SubscriptionIterator(handle: handle)
  }
}
