import Arbor
import ArborJSON
import ArborLocking
import ArborStorage
import ArborStore
import Dependencies
import Foundation
import Logging

/// The tree an upgrade's next process restores from the old one's state while the old one
/// still serves (``UpgradeIntake``): its models anchored, none of them running. Once the
/// old process has exited, the start takes it and replays the revisions journalled since
/// (``StateStore/recover(continuing:)``, `ModelAnchor.replay`) instead of decoding the
/// whole state again, which is what a client would otherwise wait for. A state of another
/// schema is only checked (its migration runs on the final snapshot, as at a start), and a
/// journal that does not go on from the prepared revision sends the start the usual way.
///
/// ```swift
/// let prepared = PreparedTree<AppModel>(dependencies: { _ in })
/// let passed = try await UpgradeIntake.take(logger: logger) { try prepared.prepare(from: $0) }
/// ```
final class PreparedTree<Root: Model>: Sendable {
  private let dependencies: @Sendable (inout DependencyValues) -> Void
  private let prepared = LockedState<(record: SnapshotRecord, anchor: ModelAnchor<Root>)?>(nil)

  init(dependencies: @escaping @Sendable (inout DependencyValues) -> Void) {
    self.dependencies = dependencies
  }

  /// Restores the old process's encoded snapshot record, or throws what restoring it would
  /// throw (the old process then serves on). Keeps the tree when the record is of this
  /// build's schema.
  func prepare(from data: Data) throws {
    let record: SnapshotRecord
    do {
      record = try JSONValueDecoder().decode(SnapshotRecord.self, from: JSONValue(parsing: Array(data)))
    } catch {
      // Not a record this build reads: the check says why, as a start would.
      try Root.checkRestorable(data)
      throw error
    }
    guard record.root == Root._$typeName, record.schema == Root.schemaHash, record.format == SnapshotRecord.currentFormat else {
      try Root.checkRestorable(data)
      return
    }
    let (_, anchor) = try Root.andAnchorInactive(restoring: record, dependencies)
    prepared.withLock { $0 = (record, anchor) }
  }

  /// Replays what the old process journalled since the prepared revision, read from its
  /// store file at `path` (``JournalTail``), round after round while the old process goes
  /// on, until a round finds fewer than `few` revisions or `rounds` have run: what is left
  /// for the start to replay after the stop is what came during the last round. The
  /// record's state follows the tree. A revision that does not replay lets the tree go
  /// (the start then restores the whole state). Blocks its thread.
  func catchUp(from path: String, few: Int = 20, rounds: Int = 8, logger: Logger) {
    guard let found = prepared.withLock({ $0 }) else { return }
    var record = found.record
    let anchor = found.anchor
    let started = ContinuousClock.now
    var replayed = 0
    do {
      let tail = try JournalTail(path: path)
      for _ in 0..<rounds {
        let entries = try tail.entries(since: record.revision, limit: 100_000)
        for entry in entries {
          // The tree refuses a revision that does not follow its own (a gap in the journal).
          try anchor.replay(entry.patch, at: entry.revision)
          _ = try record.apply(entry)
        }
        replayed += entries.count
        if entries.count < few { break }
      }
    } catch {
      prepared.withLock { $0 = nil }
      logger.warning("could not follow the old process's journal from revision \(record.revision) (\(error)): this process restores the whole state once it has stopped")
      return
    }
    prepared.withLock { $0 = (record, anchor) }
    logger.info("followed the old process's journal to revision \(record.revision): \(replayed) revisions replayed in \((ContinuousClock.now - started).logged)")
  }

  /// The prepared tree and the record it was restored from, once; nil when none was.
  func take() -> (record: SnapshotRecord, anchor: ModelAnchor<Root>)? {
    prepared.withLock { prepared in
      defer { prepared = nil }
      return prepared
    }
  }
}
