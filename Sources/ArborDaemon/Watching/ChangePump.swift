import ArborLocking
import Arbor
import ArborJSON
import ArborStorage
import Logging
import Synchronization

/// Carries the tree's change sets and events into the ``WatchHub``, and starts over from
/// the tree's state when the tree is replaced, when the hub falls too far behind, or when
/// a revision's patch was not exact.
///
/// Change sets come through a synchronous listener (`ModelAnchor.listen`): the hub applies
/// each one on the thread that committed it, right after the commit, so a change reaches
/// the connections' outboxes without a task in between. Events come through the tree's
/// event subscription, in a task.
final class ChangePump: Sendable {
  private struct State {
    /// Bumped at each start; deliveries of an older listener are ignored.
    var generation = 0
    /// The hub holds the state this generation's listener follows.
    var ready = false
    /// Change sets delivered while the hub was being reset.
    var pending: [ChangeSet] = []
    /// Under `--fsync always`: change sets committed and not yet on disk, in order.
    var held: [ChangeSet] = []
    var listener: ChangeSetListener?
  }

  let host: any TreeHost
  let hub: WatchHub
  let logger: Logger
  /// Under `--fsync always`, the journal's writer: a revision reaches the watchers only
  /// once it is on disk, so that no watcher sees a revision that was not kept.
  let durability: JournalWriter?
  private let state = LockedState(State())
  private let eventTasks = LockedState<[Task<Void, Never>]>([])
  /// The state the tree was restored from, as JSON, for the first start: encoding a large
  /// tree again would only give it back.
  private let initial: LockedState<(revision: UInt64, value: JSONValue)?>

  init(
    host: any TreeHost, hub: WatchHub, initial: (revision: UInt64, value: JSONValue)? = nil, durability: JournalWriter? = nil, logger: Logger
  ) {
    self.host = host
    self.hub = hub
    self.logger = logger
    self.durability = durability
    self.initial = LockedState(initial)
    durability?.observeWritten { [weak self] revision in self?.written(through: revision) }
  }

  /// Follows the tree until cancelled.
  func run() async {
    restart()
    await withTaskCancellationHandler {
      await loop { self.pumpEvents() }
    } onCancel: {
      self.stop()
    }
    stop()
  }

  /// Listens to the (current) tree and resets the hub from its state: at start, after a
  /// restore, when the hub fell behind. Every state watch gets a resync.
  func restart() {
    let generation = state.withLock { state -> Int in
      state.generation += 1
      state.ready = false
      state.pending = []
      state.held = []
      state.listener?.cancel()
      state.listener = nil
      return state.generation
    }
    for task in eventTasks.withLock({ $0 }) { task.cancel() }
    // Listened to first, read second: every revision after the state read arrives.
    let listener = host.listen(limit: 100_000) { [weak self] delivery in self?.deliver(delivery, generation: generation) }
    let snapshot: (revision: UInt64, value: JSONValue)
    do {
      let restored = initial.withLock { initial in
        defer { initial = nil }
        return initial
      }
      // Nothing committed since the restore (the listener is already attached): the
      // restored state is the tree's.
      if let restored, host.revision == restored.revision {
        snapshot = restored
      } else {
        snapshot = try host.state()
      }
    } catch {
      logger.error("the state cannot be encoded, watches are stopped until it can: \(error)")
      listener?.cancel()
      Task {
        try? await Task.sleep(for: .seconds(1))
        self.restart()
      }
      return
    }
    let caughtUp = state.withLock { state -> Bool in
      guard state.generation == generation else { return true }
      state.listener = listener
      hub.reset(document: snapshot.value, revision: snapshot.revision)
      defer { state.pending = [] }
      state.ready = true
      for changeSet in state.pending where changeSet.revision > snapshot.revision {
        if !accept(changeSet, in: &state) { return false }
      }
      return true
    }
    if !caughtUp { restartSoon() }
  }

  private func stop() {
    state.withLock { state in
      state.generation += 1
      state.listener?.cancel()
      state.listener = nil
    }
  }

  private func deliver(_ delivery: ChangeSetDelivery, generation: Int) {
    switch delivery {
    case .overflowed:
      // Called under the tree's lock: take no lock here, start over in a task.
      logger.warning("the watch hub fell behind the tree; watchers get a resync")
      restartSoon()
    case .committed(let changeSet):
      let applied = state.withLock { state -> Bool in
        guard state.generation == generation else { return true }
        guard state.ready else {
          state.pending.append(changeSet)
          return true
        }
        return accept(changeSet, in: &state)
      }
      if !applied { restartSoon() }
    }
  }

  /// Applies a change set now, or under `--fsync always` once it is on disk. Called with
  /// the pump's lock held; false when the hub must start over.
  private func accept(_ changeSet: ChangeSet, in state: inout State) -> Bool {
    guard let durability else { return apply(changeSet) }
    state.held.append(changeSet)
    // The journal may have written it already (its listener is told first, or wrote fast).
    return release(through: durability.progress.revision, in: &state)
  }

  /// Applies the held change sets up to `revision`, in order. Pump's lock held.
  private func release(through revision: UInt64, in state: inout State) -> Bool {
    var count = 0
    defer { if count > 0 { state.held.removeFirst(count) } }
    for changeSet in state.held {
      guard changeSet.revision <= revision else { break }
      count += 1
      if !apply(changeSet) { return false }
    }
    return true
  }

  /// The journal wrote through `revision`: what waited for it reaches the watchers.
  private func written(through revision: UInt64) {
    let released = state.withLock { state -> Bool in
      guard state.ready, !state.held.isEmpty else { return true }
      return release(through: revision, in: &state)
    }
    if !released { restartSoon() }
  }

  /// Applies one change set to the hub; false when the hub must start over. Called with
  /// the pump's lock held.
  private func apply(_ changeSet: ChangeSet) -> Bool {
    if !changeSet.isExact {
      logger.error("revision \(changeSet.revision) holds a value that could not be encoded; watchers get a resync")
      return false
    }
    return hub.apply(revision: changeSet.revision, operations: changeSet.patch.operations, patchJSON: changeSet.patchJSON)
  }

  private func restartSoon() {
    Task { self.restart() }
  }

  private func loop(_ makeRound: @escaping @Sendable () -> Task<Void, Never>) async {
    while !Task.isCancelled {
      let round = makeRound()
      eventTasks.withLock { $0.append(round) }
      await withTaskCancellationHandler {
        await round.value
      } onCancel: {
        round.cancel()
      }
      eventTasks.withLock { $0.removeAll { $0 == round } }
    }
  }

  private func pumpEvents() -> Task<Void, Never> {
    guard let (_, events) = host.events(limit: 100_000) else { return Task {} }
    return Task {
      do {
        for try await event in events { hub.publish(event) }
      } catch {
        logger.warning("event delivery fell behind the tree (\(error)); events were lost")
      }
    }
  }
}
