import Arbor
import ArborStorage
import Logging

extension ArborDaemon {
  /// The tree an upgrade's new process restored while the old one served (``PreparedTree``),
  /// with the revisions the old one journalled since replayed into it and its models then
  /// started; nil when there is none, or when the journal does not go on from it or a
  /// revision does not replay (said in the log): the start then restores the whole state.
  /// The replay runs on a thread of its own.
  func continuing(
    _ prepared: (record: SnapshotRecord, anchor: ModelAnchor<Root>)?, from store: any StateStore, logger: Logger
  ) async -> (recovery: StoreRecovery, anchor: ModelAnchor<Root>)? {
    guard let (base, anchor) = prepared else { return nil }
    let started = ContinuousClock.now
    let outcome: Result<(recovery: StoreRecovery, entries: Int)?, any Error> = await StoreCall.run {
      Result {
        guard let (recovery, entries) = try store.recover(continuing: base) else { return nil }
        for entry in entries { try anchor.replay(entry.patch, at: entry.revision) }
        return (recovery, entries.count)
      }
    }
    switch outcome {
    case .success(let found?):
      anchor.activate()
      logger.info(
        "restored \(Root._$typeName) at revision \(anchor.revision) from \(store.location): the tree restored at revision \(base.revision) while the old process served, and \(found.entries) journalled revisions replayed into it, in \((ContinuousClock.now - started).logged)"
      )
      return (found.recovery, anchor)
    case .success(nil):
      logger.notice(
        "the journal of \(store.location) does not go on from revision \(base.revision), where this process restored the old one's state: it restores the whole state")
    case .failure(let error):
      logger.warning("the revisions after \(base.revision) could not be replayed into the tree restored at it (\(error)): this process restores the whole state")
    }
    return nil
  }
}
