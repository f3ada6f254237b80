import ArborStorage

/// What the PostgreSQL store can do besides keeping the state, as a daemon sees it through
/// ``StateStore``: several daemons share it, one leading (``StoreLeadership``), and the
/// standbys get the leader's events (``StoreEventRelay``) and hand it their intents
/// (``StoreIntentForwarding``).
///
/// ```swift
/// let store: any StateStore = try await PostgresStore.open(address, root: root, schema: hash, fsync: .always, holder: name, logger: logger)
/// if let shared = store.leadership, !shared.isLeading { print("a standby") }
/// ```
extension PostgresStore: StoreLeadership {
  public var leadership: (any StoreLeadership)? { self }
  public var eventRelay: (any StoreEventRelay)? { self }
  public var intentForwarding: (any StoreIntentForwarding)? { self }
}
