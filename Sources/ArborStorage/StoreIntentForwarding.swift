/// How a standby of a shared store (``StoreLeadership``) hands an intent to the leader to
/// run, and how the leader serves them: through the store, so that a standby needs to reach
/// only the store, as the leader does. A daemon finds it through
/// ``StateStore/intentForwarding``.
///
/// ```swift
/// if let forwarding = store.intentForwarding {
///   let id = try await forwarding.queueForwarded(request: #"{"target":"/counter","intent":"incrementTapped"}"#)
///   let reply = try await forwarding.forwardedReply(of: id, timeout: .seconds(30))
/// }
/// ```
public protocol StoreIntentForwarding: StateStore {
  /// For a standby: queues an intent's request (its `intent.call` params as JSON text) for
  /// the leader and returns its place in the queue. When this throws, the intent was not
  /// queued (the leader runs nothing), unless the connection was lost between the queueing
  /// and its answer.
  func queueForwarded(request: String) async throws(StoreError) -> Int64
  /// For a standby: waits for the leader's reply to queued intent `id` (a JSON-RPC
  /// response's JSON text), at most `timeout`; the error after `timeout` says the leader
  /// may still run it.
  func forwardedReply(of id: Int64, timeout: Duration) async throws(StoreError) -> String
  /// For the leader: runs the intents standbys forward, in the order they were queued, with
  /// `run` (which returns the JSON-RPC response's JSON text), until the task is cancelled or
  /// this daemon no longer leads.
  func serveForwardedIntents(_ run: @escaping @Sendable (ForwardedIntent) async -> String) async
}
