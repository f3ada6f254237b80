/// Why a subscription to a tree's change sets or events stopped delivering.
///
/// Subscriptions are bounded: a consumer that falls `limit` elements behind loses what
/// was buffered and its stream ends with ``overflow(limit:)``. To catch up, subscribe
/// again, read the state (a snapshot carries its revision) and skip the change sets at or
/// below that revision.
///
/// ```swift
/// do {
///   for try await changeSet in anchor.changeSets(limit: 1_000) { apply(changeSet.patch) }
/// } catch .overflow {
///   resynchronize()
/// } catch {
///   // .concurrentConsumers: another task was already iterating this stream
/// }
/// ```
public enum SubscriptionError: Error, Sendable, Equatable, CustomStringConvertible {
  /// The consumer fell `limit` elements behind: the buffered elements were dropped and the
  /// subscription ended.
  case overflow(limit: Int)
  /// Another task was already waiting for this subscription's next element. A
  /// subscription has one consumer at a time; subscribe once per consumer.
  case concurrentConsumers

  public var description: String {
    switch self {
    case .overflow(let limit):
      return "The subscription fell \(limit) elements behind and was ended; subscribe again and re-read the state."
    case .concurrentConsumers:
      return "Another task is already iterating this subscription; subscribe once per consumer."
    }
  }
}
