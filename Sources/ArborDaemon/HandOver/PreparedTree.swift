import Arbor
import ArborJSON
import ArborStorage
import Dependencies
import Foundation
import Synchronization

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
  private let prepared = Mutex<(record: SnapshotRecord, anchor: ModelAnchor<Root>)?>(nil)

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

  /// The prepared tree and the record it was restored from, once; nil when none was.
  func take() -> (record: SnapshotRecord, anchor: ModelAnchor<Root>)? {
    prepared.withLock { prepared in
      defer { prepared = nil }
      return prepared
    }
  }
}
