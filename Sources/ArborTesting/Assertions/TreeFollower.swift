import ArborLocking
import Arbor
import ArborJSON

/// A tree a ``TesterLedger`` follows.
protocol FollowedTree: Sendable {
  /// The tree's state now, or nil when it cannot be encoded.
  var currentState: JSONValue? { get }
  /// The running tasks the test must see end, described, minus those exempted.
  var requiredTasks: [String] { get }
  /// Whether every change set committed so far has been recorded.
  var hasRecordedEverything: Bool { get }
  /// Exempts the tasks running now from the `.tasks` check.
  func exemptRunningTasks()
  /// The recorded states of the models written since following began, as of `revision`
  /// (`.transitions`); models not written since are read live.
  func states(atRevision revision: UInt64) -> [RecordedStates.Key: any Sendable]
  /// Stops following, and lets the anchor go.
  func stop()
}

/// Follows one tree for a ledger: its change sets (with the value each change replaced,
/// from a mirror of the state kept by applying them), its events and its storage writes.
final class TreeFollower<Root: Model>: FollowedTree {
  private struct Mirror {
    /// The state at `revision`; nil until the first reading, or after a patch failed.
    var value: JSONValue?
    var revision: UInt64 = 0
    var isReady = false
    /// Change sets delivered before the first reading.
    var queued: [ChangeSet] = []
  }

  private struct Handles {
    let anchor: ModelAnchor<Root>
    let listener: ChangeSetListener
    let events: EventTap
    let modifications: ModificationTap
    let stateCapture: StateCapture?
  }

  private let handles = LockedState<Handles?>(nil)
  /// The states each transaction left its written models in (`.transitions` only).
  private let captures = LockedState<[(revision: UInt64, states: RecordedStates)]>([])
  private let mirror = LockedState(Mirror())
  private let exempt = LockedState<Set<Int>>([])
  /// The revision of the last change set recorded.
  private let recorded = LockedState<UInt64>(0)
  /// The revision when following began.
  private let startRevision: UInt64

  init(anchor: ModelAnchor<Root>, index: Int, capturingStates: Bool, ledger: TesterLedger) {
    let mirror = self.mirror
    let recorded = self.recorded
    let captures = self.captures
    let stateCapture = capturingStates ? anchor.captureStates() : nil
    startRevision = anchor.revision
    let listener = anchor.listen { delivery in
      switch delivery {
      case .committed(let changeSet):
        ledger.record(changes: Self.pendingChanges(changeSet, tree: index, mirror: mirror))
        recorded.withLock { $0 = max($0, changeSet.revision) }
      case .overflowed:
        ledger.recordOverflow()
      }
    }
    let events = anchor.tapEvents { ledger.record(event: $0) }
    let modifications = anchor.tapModifications { batch in
      if let states = batch.states {
        captures.withLock { captures in
          // Taps run on committing threads: keep the captures in revision order.
          let index = captures.lastIndex { $0.revision <= batch.revision }.map { $0 + 1 } ?? 0
          captures.insert((batch.revision, states), at: index)
        }
      }
      if !batch.storage.isEmpty { ledger.record(storage: batch.storage) }
    }
    handles.withLock {
      $0 = Handles(anchor: anchor, listener: listener, events: events, modifications: modifications, stateCapture: stateCapture)
    }
    // The first reading, after the listener is in place: change sets up to its revision
    // are already in it.
    let first = try? anchor.state()
    let start = first?.revision ?? anchor.revision
    recorded.withLock { $0 = max($0, start) }
    mirror.withLock { mirror in
      mirror.value = first?.value
      mirror.revision = first?.revision ?? 0
      mirror.isReady = true
      for changeSet in mirror.queued where changeSet.revision > mirror.revision { Self.apply(changeSet, to: &mirror) }
      mirror.queued = []
    }
  }

  /// The changes of `changeSet` as pending changes, each with the value it replaced.
  private static func pendingChanges(_ changeSet: ChangeSet, tree: Int, mirror: LockedState<Mirror>) -> [TesterLedger.PendingChange] {
    let befores: [String?] = mirror.withLock { mirror in
      guard mirror.isReady else {
        mirror.queued.append(changeSet)
        return []
      }
      guard changeSet.revision > mirror.revision, let value = mirror.value else { return [] }
      let befores = changeSet.changes.map { change -> String? in
        guard case .set = change.operation, let pointer = try? JSONPointer(change.path.description) else { return nil }
        return (try? pointer.appending(change.property).resolve(in: value))?.jsonString
      }
      apply(changeSet, to: &mirror)
      return befores
    }
    return changeSet.changes.enumerated().map { index, change in
      TesterLedger.PendingChange(
        read: RecordedRead(modelID: change.modelID, modelType: change.modelType, property: change.property),
        path: change.valuePath.description, before: index < befores.count ? befores[index] : nil,
        value: describe(change), revision: changeSet.revision, tree: tree)
    }
  }

  private static func apply(_ changeSet: ChangeSet, to mirror: inout Mirror) {
    guard var value = mirror.value else { return }
    do {
      try changeSet.patch.apply(to: &value)
      mirror.value = value
    } catch {
      mirror.value = nil  // values before changes are no longer known
    }
    mirror.revision = changeSet.revision
  }

  static func describe(_ change: Change) -> String {
    switch change.operation {
    case .remove: return "removed"
    default: return change.value?.jsonString ?? "(not JSON)"
    }
  }

  var currentState: JSONValue? {
    guard let anchor = handles.withLock({ $0?.anchor }) else { return nil }
    return try? anchor.state().value
  }

  var hasRecordedEverything: Bool {
    guard let (anchor, capturing) = handles.withLock({ $0.map { ($0.anchor, $0.stateCapture != nil) } }) else { return true }
    let now = anchor.revision
    guard recorded.withLock({ $0 >= now }) else { return false }
    return !capturing || captures.withLock { ($0.last?.revision ?? 0) >= now } || now == startRevision
  }

  var requiredTasks: [String] {
    guard let anchor = handles.withLock({ $0?.anchor }) else { return [] }
    let exempt = self.exempt.withLock { $0 }
    return anchor.requiredTasks.filter { !exempt.contains($0.key) }.sorted { $0.key < $1.key }.map(\.value.description)
  }

  func states(atRevision revision: UInt64) -> [RecordedStates.Key: any Sendable] {
    let captures = self.captures.withLock { $0 }
    var states: [RecordedStates.Key: any Sendable] = [:]
    // The state after the last write at or before `revision`, else the state before the
    // first write after it.
    for capture in captures where capture.revision <= revision {
      for (key, state) in capture.states.after { states[key] = state }
    }
    for capture in captures where capture.revision > revision {
      for (key, state) in capture.states.before where states[key] == nil { states[key] = state }
    }
    return states
  }

  func exemptRunningTasks() {
    guard let anchor = handles.withLock({ $0?.anchor }) else { return }
    let running = Set(anchor.requiredTasks.keys)
    exempt.withLock { $0.formUnion(running) }
  }

  func stop() {
    let handles = self.handles.withLock { handles in
      defer { handles = nil }
      return handles
    }
    _ = handles  // released here, outside the lock: releasing an anchor tears its tree down
  }
}
