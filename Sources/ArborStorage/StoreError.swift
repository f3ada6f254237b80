/// Why a store cannot be opened, read or written: each case says which file, what is
/// wrong, and what to do.
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
  /// What kind of problem it is, for programs.
  public enum Kind: String, Sendable, Hashable {
    /// The file is not an SQLite database (or its header is damaged).
    case notADatabase
    /// An SQLite database of something else.
    case foreignDatabase
    /// An Arbor store of another root model type.
    case otherRoot
    /// An Arbor store of the same root whose state has another shape.
    case otherSchema
    /// An Arbor store of a newer layout than this build reads.
    case newerFormat
    /// Damage inside the store: a snapshot or revision that cannot be read, or a gap.
    case damaged
    /// The database failed to read or write.
    case io
    /// The file system is full: nothing more can be written until space is freed.
    case full
    /// The database or its directory cannot be written (a read-only file system, or
    /// permissions).
    case readOnly
    /// Another process holds the database's write lock.
    case busy
    /// The database file was removed or replaced by another file since it was opened:
    /// what is written would go to a file nobody will read.
    case replaced
    /// Another daemon leads the store now (PostgreSQL): this one must not write; it
    /// started another term, or took a revision this daemon was about to write.
    case superseded
    /// This daemon is a standby of the store (PostgreSQL): only the leader writes it.
    case standby
    /// The store's server cannot be reached (PostgreSQL).
    case unreachable
    /// The task waiting for the store was cancelled; nothing failed.
    case cancelled
  }

  public var kind: Kind
  /// The database file (SQLite), or the database's address without its password
  /// (PostgreSQL).
  public var path: String
  /// What is wrong and what to do.
  public var message: String

  public init(_ kind: Kind, path: String, _ message: String) {
    self.kind = kind
    self.path = path
    self.message = message
  }

  public var description: String { "\(path): \(message)" }
}
