/// What happened to a watch's connection, for a program that shows it (`arborctl watch`
/// prints "reconnecting…").
///
/// ```swift
/// let watch = client.watch("/counters") { event in
///   if case .lost(let error) = event { print("lost: \(error)") }
/// }
/// ```
public enum WatchConnectionEvent: Sendable {
  /// The watch is subscribed, on its first connection or again after a loss; `revision`
  /// is where it goes on from.
  case subscribed(revision: UInt64)
  /// The connection closed or could not be opened; the watch tries again per its
  /// ``ReconnectPolicy``.
  case lost(ArborClientError)
}
