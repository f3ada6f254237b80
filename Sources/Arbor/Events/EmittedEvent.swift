/// An event as the tree records it for outside consumers (the daemon's event streams).
///
/// ```swift
/// for try await emitted in anchor.events() where emitted.isExportable {
///   print(emitted.revision, emitted.sourcePath, emitted.type)
/// }
/// ```
public struct EmittedEvent: Sendable {
  /// The tree's revision when the event was sent.
  public let revision: UInt64
  /// The id of the model that sent it.
  public let source: ModelID
  /// The sending model's type name.
  public let sourceType: String
  /// The sending model's path from the root.
  public let sourcePath: ModelPath
  /// The event's type name, e.g. `CounterModel.Event`.
  public let type: String
  /// The event itself.
  public let event: any Sendable
  /// Whether the event is `Codable`, so that it can leave the process.
  public let isExportable: Bool
}

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

/// Ends a subscription when the last value holding it is released.
public final class SubscriptionHandle<Element: Sendable>: Sendable {
  let subscription: Subscription<Element>
  init(_ subscription: Subscription<Element>) { self.subscription = subscription }
  deinit { subscription.terminate() }
}

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
