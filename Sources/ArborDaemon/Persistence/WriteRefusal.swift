import ArborStorage

/// Why the daemon refuses writes: the journal cannot write, so a change would not be kept.
///
/// Intents, restores, undo and redo are refused before they run (`org.arbor.WritesRefused`);
/// reads and watches go on. The revisions committed before the refusal took effect are held
/// in memory, in order, and written once the store takes writes again; `daemon.status`
/// (`journal.writes`) and systemd's `STATUS=` say why.
struct WriteRefusal: Sendable, Hashable {
  /// What kind of failure, for programs: `full`, `readOnly`, `busy`, `replaced`, `io`,
  /// `unreachable` (a PostgreSQL store's server cannot be reached), or `snapshot` (the
  /// journal could not save the snapshot it must rebase on).
  var cause: String
  /// What happened and what to do.
  var reason: String
  /// The newest revision on disk.
  var writtenRevision: UInt64
  /// How many committed revisions wait in memory for the disk.
  var held: UInt64
  /// The first of them.
  var heldFrom: UInt64? { held > 0 ? writtenRevision + 1 : nil }

  init(cause: String, reason: String, writtenRevision: UInt64, held: UInt64) {
    self.cause = cause
    self.reason = reason
    self.writtenRevision = writtenRevision
    self.held = held
  }

  init(_ error: StoreError, writtenRevision: UInt64, held: UInt64) {
    self.init(cause: error.kind.rawValue, reason: error.description, writtenRevision: writtenRevision, held: held)
  }
}
