/// A store several daemons share: one leads it (it alone writes the journal and the
/// snapshots), the others are its standbys, which follow the journal and take the lead
/// once the leader is gone. A daemon finds it through ``StateStore/leadership``;
/// `PostgresStore` (module `ArborPostgres`) is one.
///
/// ```swift
/// if let shared = store.leadership, !shared.isLeading {
///   while try await !shared.tryToLead() { try await Task.sleep(for: .milliseconds(200)) }
/// }
/// ```
public protocol StoreLeadership: StateStore {
  /// The term this daemon leads in; 0 while it is a standby.
  var term: Int64 { get }
  /// Whether this daemon leads the store (else it is a standby, which writes nothing).
  var isLeading: Bool { get }
  /// This daemon as the store names it to the others while it leads (its name, pid and
  /// host).
  var holder: String { get }

  /// Who leads the store now, as the store says; nil when nobody has yet, or the store
  /// cannot be read.
  func leaderHolder() async -> (holder: String, term: Int64)?
  /// A standby's try to take the lead: true once this daemon leads (it reads the journal
  /// the old leader left before it writes), false while another daemon leads.
  func tryToLead() async throws(StoreError) -> Bool
  /// For the leader: makes sure it still leads, with an answer from the store within
  /// `timeout`; ``StoreError/Kind/superseded`` when another daemon leads now,
  /// ``StoreError/Kind/unreachable`` when no answer came in time. A late answer must never
  /// cost the lead: whatever holds the lead (a lock, a session) is not given up because a
  /// check was slow.
  func confirmLead(within timeout: Duration) async throws(StoreError)
  /// For a leader that lost the lead: becomes a standby (writes nothing; ``tryToLead()``
  /// may take the lead again later).
  func stepDown() async
  /// Wakes a standby's reader of the journal: at each journal transaction the leader
  /// commits, and every `interval` besides.
  func journalWakeups(every interval: Duration) -> StoreWakeups
}
