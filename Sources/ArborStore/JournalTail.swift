import ArborRecords
import ArborStorage
import GRDB

/// Reads the journal of a store that another process writes, without opening it as a
/// store: read-only, with no lock taken and nothing written. An upgrade's next process
/// follows the running daemon's journal with it before it takes over, so that little is
/// left to replay once the old process has stopped.
///
/// ```swift
/// let tail = try JournalTail(path: "/var/lib/counterfactd/arbor.sqlite")
/// let newer = try tail.entries(since: 1_200, limit: 10_000)
/// ```
public final class JournalTail: Sendable {
  private let queue: DatabaseQueue
  private let path: String

  /// Opens the store file at `path` for reading only.
  public init(path: String) throws(StoreError) {
    var configuration = Configuration()
    configuration.readonly = true
    do {
      queue = try DatabaseQueue(path: path, configuration: configuration)
    } catch {
      throw Store.classify(error, path: path)
    }
    self.path = path
  }

  /// The journalled revisions after `since`, oldest first, at most `limit`, as written by
  /// now; each patch checked against its checksum.
  public func entries(since: UInt64, limit: Int) throws(StoreError) -> [JournalEntry] {
    let place = StoredRecords.Place(location: path, advice: "the upgrade restores the whole state instead.")
    do {
      return try queue.read { db in try Store.entries(db, since: since, limit: limit, at: place) }
    } catch {
      throw Store.classify(error, path: path)
    }
  }
}
