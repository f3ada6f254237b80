/// Who leads the store a standby follows, as the store last said: what a write refused on
/// the standby names (`org.arbor.NotLeader`) and `daemon.status` shows.
struct StandbyLeader: Sendable, Hashable {
  /// The leader's name, pid and host (`store_leader.holder`); nil before any daemon led.
  var holder: String?
  var term: Int64?
  /// The store's address, without its password.
  var store: String
  /// Whether `intent.call` is forwarded to the leader (`--forward-intents`), rather than
  /// refused.
  var forwards = true
}
