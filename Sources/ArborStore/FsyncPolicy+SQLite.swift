import ArborStorage

extension FsyncPolicy {
  /// SQLite's `synchronous` setting for the policy (the database is in WAL mode).
  var synchronous: String {
    switch self {
    case .always: return "FULL"
    case .batch: return "NORMAL"
    case .off: return "OFF"
    }
  }
}
