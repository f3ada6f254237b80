import ArborLocking
import ArborStorage
import GRDB

#if canImport(Glibc)
  import Glibc
#endif

/// The store's `DatabasePool`, read and written only while the store is open: a read or
/// write begins only before ``close()``, and closing waits for those under way.
///
/// GRDB's `DatabasePool.close()` does not wait for a read that had found the pool open
/// and is about to take a reader: it closes the readers, and that read then calls SQLite
/// without a connection (a crash at address 0x65 inside `sqlite3_get_autocommit`, seen
/// when a daemon stopped while its journal read the snapshots' revisions). A read or
/// write that begins once the store is closing gets ``StoreError/Kind/cancelled``
/// instead.
///
/// ```swift
/// let pool = StorePool(try DatabasePool(path: path), path: path)
/// let count = try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM journal") }
/// ```
struct StorePool: Sendable {
  private struct Access {
    var closing = false
    var underWay = 0
  }

  private let database: DatabasePool
  private let path: String
  private let access = LockedState(Access())

  init(_ database: DatabasePool, path: String) {
    self.database = database
    self.path = path
  }

  @_disfavoredOverload
  func read<T>(_ value: (Database) throws -> T) throws -> T {
    try whileOpen { try database.read(value) }
  }

  func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
    try await whileOpen { try await database.read(value) }
  }

  @_disfavoredOverload
  func write<T>(_ updates: (Database) throws -> T) throws -> T {
    try whileOpen { try database.write(updates) }
  }

  func write<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    try await whileOpen { try await database.write(updates) }
  }

  @_disfavoredOverload
  func writeWithoutTransaction<T>(_ updates: (Database) throws -> T) throws -> T {
    try whileOpen { try database.writeWithoutTransaction(updates) }
  }

  func writeWithoutTransaction<T: Sendable>(_ updates: @Sendable (Database) throws -> T) async throws -> T {
    try await whileOpen { try await database.writeWithoutTransaction(updates) }
  }

  /// Refuses every read and write from now on, waits for those under way, then closes the
  /// database. Blocks: call it on a thread of its own (``Store/close()`` does).
  func close() throws {
    access.withLock { $0.closing = true }
    while access.withLock({ $0.underWay }) > 0 { usleep(1_000) }
    try database.close()
  }

  /// Runs `body` as one read or write under way, unless the store is closing.
  @_disfavoredOverload
  private func whileOpen<T>(_ body: () throws -> T) throws -> T {
    try begin()
    defer { end() }
    return try body()
  }

  private func whileOpen<T>(_ body: () async throws -> T) async throws -> T {
    try begin()
    defer { end() }
    return try await body()
  }

  private func begin() throws(StoreError) {
    let open = access.withLock { access in
      guard !access.closing else { return false }
      access.underWay += 1
      return true
    }
    guard open else {
      throw StoreError(.cancelled, path: path, "the store is closed: the daemon is stopping, and nothing more is read or written")
    }
  }

  private func end() {
    access.withLock { $0.underWay -= 1 }
  }
}
