import ArborLocking
import ArborRPC
import Arbor
import ArborJSON
import ArborStorage
import Foundation
import Logging
import NIOPosix
import Synchronization

/// Writes every committed revision of the hosted tree into the store's journal, in order,
/// without a gap, and keeps the store compact.
///
/// A synchronous listener of the tree (`ModelAnchor.listen`) hands each change set's patch
/// to the ``JournalWriter`` on the thread that committed it; the writer writes on a thread
/// of its own. When the journal cannot follow the tree by patches (at a fresh start, after a
/// restore, after a value that could not be encoded) it **rebases**: it saves a snapshot of
/// the tree and follows from there, holding the revisions committed meanwhile until the
/// snapshot is written.
///
/// Compaction snapshots are taken from the watch hub's copy of the state (kept current by
/// the same patches), never by holding the tree's lock while the tree is encoded.
final class DaemonJournal: Sendable {
  let store: any StateStore
  let writer: JournalWriter
  let host: any TreeHost
  let hub: WatchHub
  let logger: Logger
  /// Revisions kept in the journal behind the newest one.
  let history: Int
  let snapshotEvery: Int
  let snapshotInterval: Duration

  private enum Mode {
    /// Patches are journalled; `last` is the newest revision handed to the writer.
    case following(last: UInt64)
    /// A snapshot is being saved; the revisions committed meanwhile wait (nil: one that
    /// cannot be journalled by its patch).
    case rebasing(pending: [(revision: UInt64, entry: JournalEntry?)])
    case stopped
  }

  private struct State {
    var generation = 0
    var listener: ChangeSetListener?
    var mode = Mode.stopped
    var snapshotRevision: UInt64 = 0
    var snapshotTime = ContinuousClock.now
    var oldestKept: UInt64?
    var snapshots = 0
    var lastError: String?
    /// The store is the next process's (``handOverStore()``): no snapshot is saved.
    var handedOver = false
  }

  private let state = LockedState(State())
  /// One snapshot saved at a time: a compaction, a rebase and the final snapshot each
  /// write a record in several transactions, and two of the same revision at once would
  /// write each other's parts.
  private let gate = AsyncTurns()
  private let snapshotObserver = LockedState<(@Sendable (Duration, Int) -> Void)?>(nil)
  /// The journal cannot follow the tree because the snapshot it must rebase on cannot be
  /// saved: writes are refused until it can (the reason is in `rebaseError`).
  private let rebaseFailing = Atomic<Bool>(false)
  private let rebaseError = LockedState<String?>(nil)
  /// Who leads the store, when this daemon serves as its standby (it writes nothing, and
  /// says who leads); nil for the leader's journal. A role's journal keeps its role: a
  /// change of lead ends the role's services and builds the next role's.
  private let standbyOf: LockedState<StandbyLeader>?

  init(
    store: any StateStore, snapshotRevisions snapshots: [UInt64], host: any TreeHost, hub: WatchHub, options: DaemonOptions,
    journalledThrough: UInt64, standby: StandbyLeader? = nil, logger: Logger
  ) {
    self.store = store
    self.standbyOf = standby.map { LockedState($0) }
    self.writer = JournalWriter(store: store, after: journalledThrough, window: .milliseconds(max(1, options.fsyncWindow)))
    self.host = host
    self.hub = hub
    self.logger = logger
    self.history = max(0, options.history)
    self.snapshotEvery = max(1, options.snapshotEvery)
    self.snapshotInterval = .seconds(max(1, options.snapshotInterval))
    state.withLock {
      // The newest snapshot the store holds: compaction counts from it, never from the
      // revision the tree was restored at (which may be far ahead of it).
      $0.snapshotRevision = snapshots.last ?? 0
      $0.oldestKept = snapshots.first
    }
  }

  // MARK: - Following the tree

  /// Follows the (current) tree from now on. `base` is the revision whose state the store
  /// holds already; when the tree is there, nothing is saved, else the journal rebases.
  func follow(holding base: UInt64?) {
    let generation = state.withLock { state -> Int in
      state.generation += 1
      state.listener?.cancel()
      state.listener = nil
      state.mode = .rebasing(pending: [])
      return state.generation
    }
    let before = host.revision
    let listener = host.listen(limit: .max) { [weak self] delivery in self?.deliver(delivery, generation: generation) }
    let after = host.revision
    let rebase = state.withLock { state -> Bool in
      guard state.generation == generation else { return false }
      state.listener = listener
      guard let base, before == base, after == base, case .rebasing(let pending) = state.mode else { return true }
      return !resume(from: base, pending: pending, in: &state)
    }
    if rebase { rebaseSoon(generation) }
  }

  /// Stops journalling (at shutdown, before the final snapshot).
  func stop() {
    state.withLock { state in
      state.generation += 1
      state.listener?.cancel()
      state.listener = nil
      state.mode = .stopped
    }
  }

  private func deliver(_ delivery: ChangeSetDelivery, generation: Int) {
    let rebase: Bool
    switch delivery {
    case .overflowed:
      // Not reached (the listener has no limit); if it were, the journal starts over.
      logger.error("the journal fell behind the tree; it rebases on a new snapshot")
      Task { self.follow(holding: nil) }
      return
    case .committed(let changeSet):
      var entry: JournalEntry? =
        changeSet.isExact
        ? JournalEntry(
          revision: changeSet.revision, time: Date(), intent: changeSet.cause?.intent, target: changeSet.cause?.target,
          patch: changeSet.patch, undoHistory: changeSet.undoHistory)
        : nil
      // The text the watch hub sends its root watchers: encoded once for both.
      if entry != nil { entry?.encodedPatch = changeSet.patchJSON }
      rebase = state.withLock { state -> Bool in
        guard state.generation == generation else { return false }
        switch state.mode {
        case .stopped:
          return false
        case .rebasing(var pending):
          pending.append((changeSet.revision, entry))
          state.mode = .rebasing(pending: pending)
          return false
        case .following(let last):
          if changeSet.revision <= last { return false }
          if changeSet.revision == last + 1, let entry {
            writer.submit(entry)
            state.mode = .following(last: changeSet.revision)
            return false
          }
          logger.error(
            "revision \(changeSet.revision) cannot be journalled by its patch (\(entry == nil ? "a value could not be encoded" : "revisions \(last + 1)…\(changeSet.revision - 1) are missing")); the journal rebases on a new snapshot")
          state.mode = .rebasing(pending: [])
          return true
        }
      }
    }
    if rebase { rebaseSoon(generation) }
  }

  /// Hands the revisions that waited to the writer and follows from `base`; false when one
  /// of them cannot be journalled (another rebase is needed).
  private func resume(from base: UInt64, pending: [(revision: UInt64, entry: JournalEntry?)], in state: inout State) -> Bool {
    var last = base
    for (revision, entry) in pending where revision > last {
      guard revision == last + 1, let entry else {
        state.mode = .rebasing(pending: [])
        return false
      }
      writer.submit(entry)
      last = revision
    }
    state.mode = .following(last: last)
    return true
  }

  private func rebaseSoon(_ generation: Int) {
    Task { await self.rebase(generation) }
  }

  /// Saves a snapshot of the tree, then follows from its revision.
  private func rebase(_ generation: Int) async {
    var delay = Duration.milliseconds(100)
    while state.withLock({ $0.generation == generation }) {
      do {
        let host = self.host
        let (record, undoHistory) = try await NIOThreadPool.singleton.runIfActive { try host.snapshotRecordWithUndoHistory() }
        // Whatever was handed to the writer before comes first.
        try await writer.flush()
        // The kept undo history is replaced by the tree's at the snapshot's revision: the
        // revisions before it that moved it may not be journalled.
        try await save(record, undoHistory: undoHistory ?? UndoHistory())
        writer.advance(to: record.revision)
        let again = state.withLock { state -> Bool in
          guard state.generation == generation, case .rebasing(let pending) = state.mode else { return false }
          return !resume(from: record.revision, pending: pending, in: &state)
        }
        if rebaseFailing.load(ordering: .relaxed) {
          rebaseFailing.store(false, ordering: .releasing)
          logger.notice("the journal saved its snapshot of revision \(record.revision): writes are accepted again")
        }
        if !again { return }
      } catch {
        logger.error("the journal cannot save a snapshot to rebase on (\(error)); writes are refused until it can; it tries again")
        state.withLock { $0.lastError = "\(error)" }
        rebaseError.withLock { $0 = "\(error)" }
        rebaseFailing.store(true, ordering: .releasing)
        try? await Task.sleep(for: delay)
        delay = min(delay * 2, .seconds(5))
      }
    }
  }

  // MARK: - Refusing writes

  /// Why writes are refused now; nil when they are accepted. Checked before every write
  /// request: two atomic loads when all is well.
  /// Who leads the store, while this daemon is a standby of it; nil when it leads (then
  /// without taking a lock: it is checked before every write).
  var standby: StandbyLeader? { standbyOf?.withLock { $0 } }

  /// A standby's news of who leads now (``JournalFollower`` reads it once a second).
  func leaderNamed(holder: String, term: Int64) {
    standbyOf?.withLock { ($0.holder, $0.term) = (holder, term) }
  }

  var refusal: WriteRefusal? {
    let writerFailed = writer.hasFailed
    guard writerFailed || rebaseFailing.load(ordering: .acquiring) else { return nil }
    let written = writer.progress.revision
    let held = writer.lag
    if writerFailed, let failure = writer.failure {
      return WriteRefusal(failure, writtenRevision: written, held: held)
    }
    let reason = rebaseError.withLock { $0 } ?? "the journal cannot save a snapshot"
    return WriteRefusal(cause: "snapshot", reason: reason, writtenRevision: written, held: max(held, host.revision - written))
  }

  /// While the writer has failed: retries every `interval` (on a thread of its own,
  /// `StoreCall`, never the cooperative pool or a shared one); writes what it held once the
  /// store takes it, and says so. Until cancelled.
  func retryWhileRefused(every interval: Duration = .seconds(1)) async {
    var refusedSince: ContinuousClock.Instant?
    var lastReport = ContinuousClock.now
    while !Task.isCancelled {
      try? await Task.sleep(for: interval)
      guard writer.hasFailed else { continue }
      if refusedSince == nil, let refusal {
        refusedSince = .now
        lastReport = .now
        logger.error(
          "writes are refused: the journal cannot write (\(refusal.reason)); \(refusal.held) committed revisions are held in memory from revision \(refusal.writtenRevision + 1). Reads and watches go on; the daemon retries every second")
      }
      let writer = self.writer
      let outcome = await StoreCall.run { writer.retry() }
      if let error = outcome {
        if ContinuousClock.now - lastReport >= .seconds(30) {
          lastReport = .now
          logger.error("writes are still refused: \(error)")
        }
      } else if let since = refusedSince, !writer.hasFailed {
        // (`retry()` also answers nil when another retry is under way, such as the final
        // snapshot's: only a writer that no longer fails writes again.)
        refusedSince = nil
        logger.notice(
          "the journal writes again after \(ContinuousClock.now - since): the held revisions are written through revision \(writer.progress.revision); writes are accepted")
      }
    }
  }

  // MARK: - Snapshots

  /// Takes a snapshot every `--snapshot-every` revisions or `--snapshot-interval` seconds
  /// (when something changed), until cancelled.
  func compactPeriodically() async {
    while !Task.isCancelled {
      try? await Task.sleep(for: .milliseconds(250))
      let written = writer.progress.revision
      let due = state.withLock { state -> Bool in
        guard written > state.snapshotRevision else { return false }
        return written - state.snapshotRevision >= UInt64(snapshotEvery) || ContinuousClock.now - state.snapshotTime >= snapshotInterval
      }
      // While an upgrade's new process restores ahead, no snapshot begins: the stop would
      // wait for it (``handOverStore()``), and every client with it (85 ms at 100,000
      // models). The new process compacts at its own first due revision.
      if due && !DaemonUpgrade.isUnderWay { await compact() }
    }
  }

  /// Saves a snapshot of the hub's copy of the state and trims the journal to the window.
  func compact() async {
    // While the journal cannot write, a snapshot could not be either.
    guard refusal == nil else { return }
    let (revision, document) = hub.current
    let skip = state.withLock { state -> Bool in
      if case .stopped = state.mode { return true }
      return revision <= state.snapshotRevision
    }
    guard !skip else { return }
    do {
      // The journal up to the snapshot is written first: no revision before it is missing.
      try await writer.durable(through: revision)
      try await save(record(of: document, at: revision))
    } catch is CancellationError {
      // The daemon is stopping: its final snapshot follows.
    } catch let error as StoreError where error.kind == .cancelled {
    } catch {
      logger.error("a snapshot could not be saved: \(error)")
      state.withLock { $0.lastError = "\(error)" }
    }
  }

  /// Whether a hand-over at `revision` can leave the next process the journal as it is,
  /// with no final snapshot (``NextStartReplay``).
  func nextStartReplaysLittle(at revision: UInt64) -> Bool {
    state.withLock { state in
      NextStartReplay.isShort(
        revision: revision, lastSnapshot: state.snapshotRevision, oldestSnapshot: state.oldestKept, history: history, snapshotEvery: snapshotEvery)
    }
  }

  /// Saves the tree's snapshot at shutdown, after the writer wrote everything: the watch
  /// hub's copy of the state when it is at the tree's revision, else the tree encoded.
  func saveFinalSnapshot() async throws {
    try await flush()
    let host = self.host
    // The hub's copy when it has the tree's last revision (it has, after a hand-over's
    // pause): the state compactions save, with no encoding of the tree.
    let (revision, document) = hub.current
    let final =
      hub.holdsState && revision == host.revision
      ? record(of: document, at: revision) : try await NIOThreadPool.singleton.runIfActive { try host.snapshotRecord() }
    try await save(final)
    let store = self.store
    try await StoreCall.run { try store.checkpoint() }
  }

  /// The state for an upgrade's next process to restore while this one serves: the hub's
  /// copy at the revision it has (the next process replays the journal after it), else the
  /// tree encoded.
  func recordForUpgrade() async throws -> SnapshotRecord {
    let (revision, document) = hub.current
    if hub.holdsState { return record(of: document, at: revision) }
    let host = self.host
    return try await NIOThreadPool.singleton.runIfActive { try host.snapshotRecord() }
  }

  /// Writes every revision handed to the writer, then waits for a snapshot being saved
  /// and lets none begin after: from then on an upgrade's new process owns the store, and
  /// this process writes nothing more to it (it may still be letting go of its tree).
  ///
  /// ```swift
  /// journal.stop()
  /// try await journal.handOverStore()
  /// ```
  func handOverStore() async throws {
    try await flush()
    try await gate.take { state.withLock { $0.handedOver = true } }
  }

  /// Writes every revision handed to the writer, after one last try for what a failing
  /// disk held back: at a stop that saves no snapshot (an upgrade's new process goes on
  /// from the journal), and before the final snapshot.
  func flush() async throws {
    if writer.hasFailed {
      // One last try for what is held; if the disk still refuses, it is lost, and said so.
      let writer = self.writer
      let held = writer.lag
      if let error = await StoreCall.run({ writer.retry() }) {
        logger.critical("\(held) committed revisions held in memory could not be written and are lost: \(error)")
        throw error
      }
    }
    try await writer.flush()
  }

  /// A snapshot record of the hub's copy of the state.
  private func record(of document: JSONValue, at revision: UInt64) -> SnapshotRecord {
    SnapshotRecord(root: host.rootType, schema: host.schemaHash, revision: revision, createdAt: Date(), state: document)
  }

  /// Saves `record` and trims the journal to the window; one save at a time. With
  /// `undoHistory`, the kept undo history becomes it (a rebase).
  private func save(_ record: SnapshotRecord, undoHistory: UndoHistory? = nil) async throws {
    try await gate.take { try await write(record, undoHistory: undoHistory) }
  }

  private func write(_ record: SnapshotRecord, undoHistory: UndoHistory?) async throws {
    if state.withLock({ $0.handedOver }) { throw CancellationError() }
    guard record.revision != state.withLock({ $0.snapshotRevision }) || state.withLock({ $0.snapshots }) == 0 || undoHistory != nil else {
      // Saved already (a compaction got there first).
      return
    }
    let started = ContinuousClock.now
    let bytes = try await NIOThreadPool.singleton.runIfActive { try record.encodedBytes() }
    let windowStart = record.revision > UInt64(history) ? record.revision - UInt64(history) : 0
    try await store.saveSnapshot(
      encoded: bytes, revision: record.revision, createdAt: record.createdAt, keepingFrom: windowStart, undoHistory: undoHistory)
    let oldest = try? await StoreCall.run { [store] in try store.snapshotRevisions().first }
    state.withLock { state in
      state.snapshotRevision = record.revision
      state.snapshotTime = .now
      state.snapshots += 1
      state.lastError = nil
      if let oldest { state.oldestKept = oldest }
    }
    snapshotObserver.withLock { $0 }?(ContinuousClock.now - started, bytes.count)
    logger.debug("saved a snapshot of revision \(record.revision) (\(bytes.count) bytes)")
  }

  /// The revision of the oldest snapshot kept: the oldest revision whose state can be read
  /// back. Read on a thread of its own (`StoreCall`: the store waits).
  func oldestSnapshot() async throws -> UInt64? {
    try await StoreCall.run { [store] in try store.snapshotRevisions().first }
  }

  /// Calls `body` after every snapshot saved, with how long encoding and writing it took
  /// and its size in bytes (`/metrics`). One observer; a second replaces the first.
  func observeSnapshots(_ body: @escaping @Sendable (Duration, Int) -> Void) {
    snapshotObserver.withLock { $0 = body }
  }

  // MARK: - Status

  /// The figures `daemon.status` reports under `journal`.
  var status: DaemonStatus.Journal {
    let (snapshotRevision, oldest, snapshots, lastError) = state.withLock {
      ($0.snapshotRevision, $0.oldestKept, $0.snapshots, $0.lastError)
    }
    let progress = writer.progress
    var status = DaemonStatus.Journal(
      file: store.location, fsync: store.fsync.rawValue, bytes: store.storedBytes, writtenRevision: progress.revision,
      transactions: progress.transactions, lag: Int(writer.lag), snapshotRevision: snapshotRevision, snapshotsSaved: snapshots,
      oldestRevision: oldest, writes: "accepted", error: lastError)
    if let standby {
      status.lead = DaemonStatus.Lead(standby: true, leader: standby.holder, term: standby.term)
    }
    if standby == nil, let shared = store.leadership {
      status.lead = DaemonStatus.Lead(standby: false, leader: shared.holder, term: shared.term)
    }
    if let refusal {
      status.writes = "refused"
      status.refusal = DaemonStatus.Refusal(
        cause: refusal.cause, reason: refusal.reason, held: Int(refusal.held), writtenRevision: refusal.writtenRevision)
      status.error = refusal.reason
    }
    return status
  }
}
