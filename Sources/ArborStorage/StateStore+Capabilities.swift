import ArborRecords

extension StateStore {
  /// None: a store is owned by one daemon unless its backend says otherwise.
  ///
  /// ```swift
  /// if let shared = store.leadership { print("term \(shared.term)") } else { print("one daemon owns \(store.location)") }
  /// ```
  public var leadership: (any StoreLeadership)? { nil }

  /// None: a store without standbys has nobody to relay events to.
  ///
  /// ```swift
  /// if let relay = store.eventRelay { try await relay.publishEvents(batch: "[]", prune: false) }
  /// ```
  public var eventRelay: (any StoreEventRelay)? { nil }

  /// None: a store without standbys has no intents to forward.
  ///
  /// ```swift
  /// let forwards = options.forwardIntents && store.intentForwarding != nil
  /// ```
  public var intentForwarding: (any StoreIntentForwarding)? { nil }

  /// None: the caller recovers the whole state (``recover()``).
  ///
  /// ```swift
  /// let continued = try store.recover(continuing: prepared) ?? (try store.recover(), [])
  /// ```
  public func recover(continuing base: SnapshotRecord) throws(StoreError) -> (recovery: StoreRecovery, entries: [JournalEntry])? { nil }
}
