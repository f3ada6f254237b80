/// The store's tables on PostgreSQL: the SQLite store's layout (``StoreSchema`` there),
/// with two additions for several daemons on one database.
///
/// - `journal.term`: the term of the leader that wrote each revision.
/// - `intent_queue`: intents a standby forwards to the leader, with the leader's answer.
/// - `events`: the events the leader's models send, in batches, for the standbys'
///   `events.watch` (kept a minute: events are live, not history).
/// - `store_leader`: one row, the current term and who holds it. A daemon that becomes the
///   leader raises the term; each journal transaction checks it with `FOR SHARE`, so a
///   leader whose term was raised writes nothing more (fencing that does not rest on the
///   advisory lock alone).
enum PostgresSchema {
  /// The layout this build writes: the SQLite store's 2, plus terms.
  static let format = 2

  /// The advisory lock the leader holds on its session: "Arbor" in ASCII.
  static let leaderLock: Int64 = 0x4172_626f_72

  static let create = [
    "CREATE TABLE IF NOT EXISTS store_info (key text PRIMARY KEY, value text NOT NULL)",
    "CREATE TABLE IF NOT EXISTS store_leader (id integer PRIMARY KEY CHECK (id = 1), term bigint NOT NULL, holder text NOT NULL, since timestamptz NOT NULL)",
    "CREATE TABLE IF NOT EXISTS snapshots (revision bigint PRIMARY KEY, created_at double precision NOT NULL, size bigint NOT NULL, parts bigint NOT NULL, checksum bigint NOT NULL)",
    "CREATE TABLE IF NOT EXISTS snapshot_parts (revision bigint NOT NULL, part bigint NOT NULL, bytes bytea NOT NULL, PRIMARY KEY (revision, part))",
    "CREATE TABLE IF NOT EXISTS journal (revision bigint PRIMARY KEY, term bigint NOT NULL, time double precision NOT NULL, intent text, target text, patch text NOT NULL, checksum bigint NOT NULL)",
    "CREATE TABLE IF NOT EXISTS intent_queue (id bigserial PRIMARY KEY, sender text NOT NULL, request text NOT NULL, claimed_term bigint, reply text, created_at timestamptz NOT NULL DEFAULT now())",
    "CREATE TABLE IF NOT EXISTS events (seq bigserial PRIMARY KEY, term bigint NOT NULL, batch text NOT NULL, created_at timestamptz NOT NULL DEFAULT now())",
    "CREATE TABLE IF NOT EXISTS undo_steps (stack bigint NOT NULL, position bigint NOT NULL, revision bigint NOT NULL, step text NOT NULL, checksum bigint NOT NULL, PRIMARY KEY (stack, position))",
  ]
}
