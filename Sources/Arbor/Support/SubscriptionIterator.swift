/// Iterates a subscription's elements in order, from one task at a time.
///
/// Throws ``SubscriptionError/overflow(limit:)`` once when the consumer fell too far behind,
/// and ``SubscriptionError/concurrentConsumers`` when another task is already waiting on
/// the same subscription.
public struct SubscriptionIterator<Element: Sendable>: AsyncIteratorProtocol {
  public typealias Failure = SubscriptionError
  let handle: SubscriptionHandle<Element>

  public mutating func next() async throws(SubscriptionError) -> Element? {
    try await handle.subscription.next()
  }

  public mutating func next(isolation actor: isolated (any Actor)?) async throws(SubscriptionError) -> Element? {
    try await handle.subscription.next()
  }
}
