/// A live stream of the events sent in a tree, from the moment of subscription.
///
/// Bounded: a consumer that falls `limit` events behind gets
/// ``SubscriptionError/overflow(limit:)`` and the stream ends.
public struct EmittedEvents: AsyncSequence, Sendable {
  public typealias Element = EmittedEvent
  public typealias Failure = SubscriptionError
  let handle: SubscriptionHandle<EmittedEvent>

  public func makeAsyncIterator() -> SubscriptionIterator<EmittedEvent> {
    SubscriptionIterator(handle: handle)
  }
}
