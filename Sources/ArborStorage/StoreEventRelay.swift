/// How the leader of a shared store (``StoreLeadership``) hands its models' events to the
/// standbys, which run no models of their own: the leader writes them in batches (each a
/// JSON array's text, fenced by its term like the journal), a standby reads the batches
/// after the newest it has seen. A daemon finds it through ``StateStore/eventRelay``.
///
/// ```swift
/// if let relay = store.eventRelay {
///   for (_, batch) in try await relay.eventBatches(after: seen, limit: 100) { deliver(batch) }
/// }
/// ```
public protocol StoreEventRelay: StateStore {
  /// For the leader: writes one batch of events (`batch`, a JSON array's text) and, with
  /// `prune`, drops the batches old enough that no standby still reads them. A daemon that
  /// does not lead, or no longer does, writes nothing and gets
  /// ``StoreError/Kind/superseded``.
  func publishEvents(batch: String, prune: Bool) async throws(StoreError)
  /// For a standby: the newest batch's number now (0 for none), where its reading starts.
  func newestEventBatch() async throws(StoreError) -> Int64
  /// For a standby: the batches after `seq`, oldest first, at most `limit`.
  func eventBatches(after seq: Int64, limit: Int) async throws(StoreError) -> [(seq: Int64, batch: String)]
  /// Wakes a standby's reader of events: at each batch the leader writes, and every
  /// `interval` besides.
  func eventWakeups(every interval: Duration) -> StoreWakeups
}
