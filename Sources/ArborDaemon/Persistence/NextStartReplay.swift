/// Whether the next process can go on from the journal as a hand-over leaves it, with no
/// final snapshot: it then replays what came after the last snapshot before it serves.
///
/// That is short when the daemon's compactions kept up: at most `--snapshot-every`
/// revisions after the last snapshot, and never more than ``replayLimit`` (9,750
/// one-counter revisions over 100,000 models took 40–70 ms to replay; the final snapshot
/// they spare took 95–215 ms of the stop under load), with the journal within `--history`
/// + `--snapshot-every` revisions of the oldest snapshot, so that the next start does not
/// compact before it serves (``StartUpkeep/boundJournal(revision:history:snapshotEvery:store:logger:)``).
/// A compaction that fell behind, or a journal left long by an earlier life, makes the
/// stop save a snapshot after all.
///
/// ```swift
/// NextStartReplay.isShort(revision: 12_000, lastSnapshot: 10_000, oldestSnapshot: 9_000, history: 1_000, snapshotEvery: 10_000)  // true
/// ```
enum NextStartReplay {
  /// The most revisions a next start is left to replay.
  static let replayLimit: UInt64 = 10_000

  static func isShort(revision: UInt64, lastSnapshot: UInt64, oldestSnapshot: UInt64?, history: Int, snapshotEvery: Int) -> Bool {
    let replayed = revision - min(revision, lastSnapshot)
    let spanned = revision - min(revision, oldestSnapshot ?? revision)
    let bound = UInt64(max(0, history)) + UInt64(max(1, snapshotEvery))
    return replayed <= min(UInt64(max(1, snapshotEvery)), replayLimit) && spanned <= bound
  }
}
