import Arbor
import ArborStorage
import Foundation
import Logging

/// What a start trims in the store before it serves: the kept undo history to
/// `--undo-depth` (a restart with a smaller depth), and the journal to its bound
/// (`--history` + `--snapshot-every`; lives killed before a due snapshot leave it longer).
///
/// ```swift
/// let history = try await StartUpkeep.trimUndoHistory(recovery, depth: 3, store: store, logger: logger)
/// ```
enum StartUpkeep {
  /// The recovered undo history with at most `depth` steps on each stack (the newest
  /// kept). When it had more, the store's history is replaced by the trimmed one (with a
  /// snapshot of the recovered state, in one transaction) and the log says so once.
  static func trimUndoHistory(_ recovery: StoreRecovery, depth: Int, store: any StateStore, logger: Logger) async throws -> UndoHistory {
    let kept = recovery.undoHistory
    let trimmed = kept.keepingNewest(depth)
    guard trimmed != kept, let record = recovery.record else { return kept }
    do throws(StoreError) {
      try await store.saveSnapshot(record, undoHistory: trimmed)
    } catch {
      throw DaemonStartError("cannot trim the kept undo history to --undo-depth \(depth) in \(store.location): \(error)")
    }
    var message = "trimmed the kept undo history from \(kept.undo.count) undo steps to \(trimmed.undo.count) (--undo-depth \(depth))"
    if trimmed.redo.count != kept.redo.count { message += ", and from \(kept.redo.count) redo steps to \(trimmed.redo.count)" }
    logger.notice("\(message)")
    return trimmed
  }

  /// Brings the journal back within `--history` + `--snapshot-every` revisions behind
  /// `revision` (the restored one) when it spans more: saves the state at `revision -
  /// --history` as a snapshot and drops what is older. Lives killed before a due snapshot
  /// was taken leave the journal longer than its bound; the start that finds it so
  /// compacts before it serves.
  static func boundJournal(
    revision: UInt64, history: Int, snapshotEvery: Int, store: any StateStore, logger: Logger
  ) async throws {
    let history = UInt64(max(0, history))
    let bound = history + UInt64(max(1, snapshotEvery))
    let oldest = await StoreReads.snapshotRevisions(store).first
    guard let oldest, revision > oldest, revision - oldest > bound else { return }
    let start = revision - history
    do throws(StoreError) {
      guard let record = try await store.state(at: start) else { return }
      try await store.saveSnapshot(record, keepingFrom: start)
    } catch {
      throw DaemonStartError("cannot compact the journal of \(store.location) from revision \(oldest) to \(start): \(error)")
    }
    logger.notice(
      "compacted the journal before serving: it held revisions \(oldest) to \(revision), more than --history \(history) + --snapshot-every \(snapshotEvery); it now holds them from \(start)"
    )
  }
}

extension UndoHistory {
  /// The history with at most `depth` steps on each stack, the newest kept (those undone
  /// or redone first).
  ///
  /// ```swift
  /// let kept = history.keepingNewest(3)
  /// ```
  func keepingNewest(_ depth: Int) -> UndoHistory {
    let depth = max(1, depth)
    return UndoHistory(undo: Array(undo.suffix(depth)), redo: Array(redo.suffix(depth)))
  }
}
