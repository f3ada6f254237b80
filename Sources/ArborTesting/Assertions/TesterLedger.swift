import ArborLocking
import Arbor
import ArborJSON
import CustomDump

/// What tested trees did that no assertion has accounted for yet: state changes with their
/// chains of values, storage writes (local, environment, preference), events, probe
/// calls; and what must be accounted for by the end of the test. ``ModelTester`` keeps one
/// for its tree, a model-testing scope one for every tree its test anchors.
package final class TesterLedger: Sendable {
  struct PendingChange: Sendable {
    let read: RecordedRead
    let path: String
    /// The property's value before this change, when the change set it whole.
    let before: String?
    let value: String
    let revision: UInt64
    /// The followed tree it happened in (its index).
    let tree: Int
    /// Its place among everything the ledger recorded (see ``Mark``).
    var sequence = 0
  }

  struct PendingStorage: Sendable {
    let read: RecordedRead
    let kind: StorageKind
    let before: String
    let value: String
    var sequence = 0
  }

  struct PendingEvent: Sendable {
    let id: Int
    let event: EmittedEvent
  }

  struct State: Sendable {
    var exhaustivity: Exhaustivity
    var showSkippedAssertions = false
    var changes: [PendingChange] = []
    var storage: [PendingStorage] = []
    /// The last value written to each storage key of each model, as text.
    var storageValues: [RecordedRead: String] = [:]
    var events: [PendingEvent] = []
    var nextEventID = 0
    var probes: [TestProbe] = []
    var overflowed = false
    /// Counts every change set, storage write and event: `settle` waits for it to stand still.
    var activity: UInt64 = 0
    /// The sequence number of the next change or storage write recorded.
    var nextSequence = 0
    /// The sequence number of the last change an `expect` matched (`.transitions`).
    var cursor = -1
  }

  private let state: LockedState<State>
  private let trees = LockedState<[any FollowedTree]>([])

  package init(exhaustivity: Exhaustivity) {
    state = LockedState(State(exhaustivity: exhaustivity))
  }

  func withLock<R>(_ body: (inout State) -> R) -> R { state.withLock { body(&$0) } }

  /// What must be asserted by the end of the test.
  package var exhaustivity: Exhaustivity {
    get { withLock { $0.exhaustivity } }
    set { withLock { $0.exhaustivity = newValue } }
  }

  /// Starts following a tree: its change sets, events and storage writes from now on.
  package func follow<Root: Model>(_ anchor: ModelAnchor<Root>) {
    trees.withLock { trees in
      let follower = TreeFollower(
        anchor: anchor, index: trees.count, capturingStates: exhaustivity.contains(.transitions), ledger: self)
      trees.append(follower)
    }
  }

  /// Stops following every tree and lets their anchors go (which ends `withAnchor()` trees).
  package func release() {
    let all = trees.withLock { trees in
      defer { trees = [] }
      return trees
    }
    for tree in all { tree.stop() }
  }

  /// Includes a probe's calls in the `.probes` check.
  package func install(_ probe: TestProbe) {
    withLock { state in
      if !state.probes.contains(where: { $0 === probe }) { state.probes.append(probe) }
    }
  }

  /// How much has happened so far (see ``State/activity``).
  var activity: UInt64 { withLock { $0.activity } }

  // MARK: Recording (from the followers)

  func record(changes: [PendingChange]) {
    withLock { state in
      for var change in changes {
        change.sequence = state.nextSequence
        state.nextSequence += 1
        state.changes.append(change)
      }
      state.activity += 1
    }
  }

  func recordOverflow() { withLock { $0.overflowed = true } }

  func record(storage modifications: [StorageModification]) {
    withLock { state in
      for modification in modifications {
        let read = RecordedRead(modelID: modification.modelID, modelType: modification.modelType, property: modification.name)
        let value = modification.value.map { String(customDumping: $0) } ?? "(removed)"
        let before = state.storageValues[read] ?? "(not set)"
        state.storageValues[read] = value
        state.storage.append(PendingStorage(read: read, kind: modification.kind, before: before, value: value, sequence: state.nextSequence))
        state.nextSequence += 1
      }
      state.activity += 1
    }
  }

  func record(event: EmittedEvent) {
    withLock { state in
      state.events.append(PendingEvent(id: state.nextEventID, event: event))
      state.nextEventID += 1
      state.activity += 1
    }
  }

  // MARK: Scopes of a test body

  /// Where the records stand now: what `forgetSince(_:keeping:)` forgets after.
  struct Mark {
    let sequence: Int
    let eventID: Int
    let probeCalls: [ObjectIdentifier: Int]
  }

  /// Marks where the records stand now.
  func mark() -> Mark {
    withLock { state in
      Mark(
        sequence: state.nextSequence, eventID: state.nextEventID,
        probeCalls: Dictionary(uniqueKeysWithValues: state.probes.map { (ObjectIdentifier($0), $0.callCount) }))
    }
  }

  /// Forgets what was recorded after `mark` in the categories not in `kept`.
  func forget(since mark: Mark, keeping kept: Exhaustivity) {
    let probes: [TestProbe] = withLock { state in
      if !kept.contains(.state) { state.changes.removeAll { $0.sequence >= mark.sequence } }
      state.storage.removeAll { $0.sequence >= mark.sequence && !kept.contains(Exhaustivity($0.kind)) }
      if !kept.contains(.events) { state.events.removeAll { $0.id >= mark.eventID } }
      return kept.contains(.probes) ? [] : state.probes
    }
    for probe in probes { probe.consumeCalls(from: mark.probeCalls[ObjectIdentifier(probe)] ?? 0) }
  }

  /// Forgets every record in `categories`, and exempts the tasks running now: the start of
  /// the test's baseline (`settle`).
  func reset(_ categories: Exhaustivity) {
    let probes: [TestProbe] = withLock { state in
      if categories.contains(.state) {
        state.changes = []
        state.overflowed = false
        state.cursor = state.nextSequence - 1
      }
      state.storage.removeAll { categories.contains(Exhaustivity($0.kind)) }
      if categories.contains(.events) { state.events = [] }
      return categories.contains(.probes) ? state.probes : []
    }
    for probe in probes { probe.consumeCalls(from: 0) }
    if categories.contains(.tasks) {
      for tree in trees.withLock({ $0 }) { tree.exemptRunningTasks() }
    }
  }

  // MARK: The end of the test

  /// The running tasks that must have ended, described.
  package var requiredTasks: [String] { trees.withLock { $0 }.flatMap { $0.requiredTasks } }

  /// What was left unasserted, as the sections of a report; `runningTasks` are the tasks
  /// still running after the grace period.
  package func leftovers(runningTasks: [String], of categories: Exhaustivity? = nil) -> [String] {
    let state = withLock { $0 }
    let required = categories ?? state.exhaustivity
    var sections: [String] = []
    if required.contains(.state) {
      if state.overflowed { sections.append("State changes: more than the tester could keep; assert sooner.") }
      if !state.changes.isEmpty {
        sections.append("State changes not asserted:\n" + Self.group(state.changes).map { "  " + $0 }.joined(separator: "\n"))
      }
    }
    for (kind, title) in [(StorageKind.local, "Local values"), (.environment, "Environment values"), (.preference, "Preference contributions")] {
      let pending = state.storage.filter { $0.kind == kind }
      guard required.contains(Exhaustivity(kind)), !pending.isEmpty else { continue }
      sections.append("\(title) not asserted:\n" + Self.group(pending).map { "  " + $0 }.joined(separator: "\n"))
    }
    if required.contains(.events), !state.events.isEmpty {
      sections.append(
        "Events not asserted (didSend):\n"
          + state.events.map {
            "  \($0.event.type).\(String(describing: $0.event.event)) from \($0.event.sourceType) at \(Self.text($0.event.sourcePath.description))"
          }
          .joined(separator: "\n"))
    }
    if required.contains(.tasks), let tasks = TesterReport.tasksSection(runningTasks) { sections.append(tasks) }
    if required.contains(.probes), let calls = TesterReport.unassertedCalls(of: state.probes) { sections.append(calls) }
    return sections
  }

  /// `CounterModel.count at /counters/0/counter/count: 0 → 1 → 2 (revisions 3, 4)`, one
  /// line per property, from its value before the first change left unasserted.
  static func group(_ changes: [PendingChange]) -> [String] {
    grouped(changes, by: \.read).map { read, all in
      let revisions = all.map { String($0.revision) }.joined(separator: ", ")
      let chain = (all[0].before.map { [$0] } ?? []) + all.map(\.value)
      return "\(read.modelType).\(read.property) at \(text(all.last!.path)): \(chain.joined(separator: " → ")) (revision\(all.count == 1 ? "" : "s") \(revisions))"
    }
  }

  /// `SearchModel.local.isEditing: (not set) → true → false`, one line per key of a model.
  static func group(_ writes: [PendingStorage]) -> [String] {
    grouped(writes, by: \.read).map { read, all in
      "\(read.modelType).\(read.property): \(([all[0].before] + all.map(\.value)).joined(separator: " → "))"
    }
  }

  private static func grouped<Element>(_ elements: [Element], by key: (Element) -> RecordedRead) -> [(RecordedRead, [Element])] {
    var order: [RecordedRead] = []
    var byRead: [RecordedRead: [Element]] = [:]
    for element in elements {
      if byRead[key(element)] == nil { order.append(key(element)) }
      byRead[key(element), default: []].append(element)
    }
    return order.map { ($0, byRead[$0]!) }
  }

  static func text(_ path: String) -> String { path.isEmpty ? "/" : path }
}

extension TesterLedger: AssertionLedger {
  package func firstPendingEvent(excluding excluded: Set<Int>, where matches: (TestedEvent) -> Bool) -> Int? {
    let events = withLock { $0.events }
    return events.first { pending in
      !excluded.contains(pending.id) && matches(TestedEvent(sourceID: pending.event.source, value: pending.event.event, json: nil))
    }?.id
  }

  package var hasRecordedEverything: Bool {
    trees.withLock { $0 }.allSatisfy(\.hasRecordedEverything)
  }

  package func consume(reads: Set<RecordedRead>, events: Set<Int>) {
    withLock { state in
      state.changes.removeAll { reads.contains($0.read) }
      state.storage.removeAll { reads.contains($0.read) }
      state.events.removeAll { events.contains($0.id) }
    }
  }

  /// `TesterCounter.count = 1 (at /count)` for each state read, from its tree's state now;
  /// `TesterCounter.local.isEditing = true` for each storage read.
  package func describe(_ reads: Set<RecordedRead>) -> [String] {
    let storageValues = withLock { $0.storageValues }
    let states = trees.withLock { $0 }.compactMap(\.currentState)
    return reads.map { read -> String in
      if read.property.contains(".") {
        return "\(read.modelType).\(read.property) = \(storageValues[read] ?? "(not set: its default)")"
      }
      let state = states.first { $0.pointer(toObjectWithID: read.modelID.description) != nil }
      return TesterReport.describe([read], in: state, missing: "(not state)")[0]
    }.sorted()
  }
}

extension TesterLedger: TransitionLedger {
  package var checksTransitions: Bool { exhaustivity.contains(.transitions) }

  package func transitionPoints() -> [TransitionPoint] {
    let (changes, cursor) = withLock { ($0.changes, $0.cursor) }
    let trees = self.trees.withLock { $0 }
    // One point per revision of a tree, at its last change.
    var points: [(tree: Int, revision: UInt64, sequence: Int)] = []
    for change in changes where change.sequence > cursor {
      if let last = points.last, last.tree == change.tree, last.revision == change.revision {
        points[points.count - 1].sequence = change.sequence
      } else {
        points.append((change.tree, change.revision, change.sequence))
      }
    }
    return points.compactMap { point in
      guard trees.indices.contains(point.tree) else { return nil }
      return TransitionPoint(states: trees[point.tree].states(atRevision: point.revision), sequence: point.sequence)
    }
  }

  package func consumeTransition(reads: Set<RecordedRead>, upTo sequence: Int, events: Set<Int>) -> [String] {
    withLock { state in
      let taken = state.changes.filter { $0.sequence <= sequence && reads.contains($0.read) }
      state.changes.removeAll { $0.sequence <= sequence && reads.contains($0.read) }
      state.storage.removeAll { reads.contains($0.read) }
      state.events.removeAll { events.contains($0.id) }
      if let last = taken.last { state.cursor = max(state.cursor, last.sequence) }
      let repeated = Dictionary(grouping: taken, by: \.read).filter { $0.value.count > 1 }
      return Self.group(taken.filter { repeated[$0.read] != nil })
    }
  }
}

extension Exhaustivity {
  /// The category of a kind of storage.
  init(_ kind: StorageKind) {
    switch kind {
    case .local: self = .local
    case .environment: self = .environment
    case .preference: self = .preference
    }
  }
}
