/// When a committed revision is on disk, as `--fsync` says. Each backend maps it to its
/// own setting (SQLite's `synchronous`, PostgreSQL's `synchronous_commit`).
///
/// ```swift
/// let store = try Store.open(at: path, root: "AppModel", schema: hash, fsync: .always)
/// ```
public enum FsyncPolicy: String, Sendable, Hashable, CaseIterable {
  /// A revision is acknowledged only once its journal transaction is synced to disk;
  /// revisions committed meanwhile share that transaction (group commit).
  case always
  /// Revisions are acknowledged at once and written together at most `window` later;
  /// a crash loses at most that window of acknowledged revisions.
  case batch
  /// Written like `batch`, never synced: the operating system decides. A process crash
  /// loses only the unwritten window; a power loss may lose more.
  case off
}
