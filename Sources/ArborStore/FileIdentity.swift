import ArborStorage

#if canImport(Glibc)
  import Glibc
#endif

/// A file's device and inode: whether the file at a path is still the one that was opened.
struct FileIdentity: Sendable, Hashable {
  var device: UInt64
  var inode: UInt64

  /// The identity of the file at `path` now; nil when there is none.
  init?(path: String) {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    device = UInt64(info.st_dev)
    inode = UInt64(info.st_ino)
  }
}

extension Store {
  /// Throws ``StoreError/Kind/replaced`` when the database file was removed or replaced
  /// since the store was opened: SQLite would go on writing to the file it has open, which
  /// nobody would read again.
  func checkFileIdentity() throws(StoreError) {
    guard let identity else { return }
    guard let now = FileIdentity(path: path) else {
      throw StoreError(
        .replaced, path: path,
        "the database file was removed while the daemon had it open: what it writes would be lost. Restore the file (from a backup), or stop the daemon; nothing more is written until the file is back")
    }
    guard now == identity else {
      throw StoreError(
        .replaced, path: path,
        "the database file was replaced by another file while the daemon had it open: what it writes would go to the old one. Stop the daemon and start it again to serve the new file, or move the old one back")
    }
  }

  /// Writes nothing of value, durably: whether the store can be written now. Used to learn
  /// that a failed disk is back before the daemon accepts writes again.
  public func probeWrite() throws(StoreError) {
    try checkFileIdentity()
    do {
      try pool.write { db in
        try db.execute(sql: "INSERT OR REPLACE INTO store_info (key, value) VALUES ('probe', ?)", arguments: ["\(time(nil))"])
      }
    } catch {
      throw Self.classify(error, path: path)
    }
  }
}
