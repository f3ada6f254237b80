import Synchronization

/// Everyone who follows a tree's commits, and what they need noted while a transaction is
/// open: the tree hands each commit to it (``ModelTree/commit()``) and it says what is to
/// be delivered once the lock is released.
///
/// The followers, each with its own way in:
/// - **change-set subscribers** (`anchor.changeSets()`, `node.changes()`), fed under the lock;
/// - **change-set listeners** (`anchor.listen`: the daemon's journal and watch hub), fed in
///   order after it through the ``ChangeSetRelay``;
/// - **modification taps** (testers, `observeModifications`), with the storage writes and
///   parent changes noted during the transaction and, on demand, the states before it;
/// - **undo** (`node.trackUndo`), which records the step of each commit;
/// - **event subscribers and taps** (`anchor.events()`, testers), fed as events are sent.
///
/// Every field is guarded by the tree's lock, as the tree's own are.
final class CommitFanOut: @unchecked Sendable {  // Sendable: every field is guarded by `lock` (the tree's)
  /// The tree's lock.
  let lock: TreeLock

  // MARK: Change sets

  @exclusivity(unchecked) private var subscribers: [Int: Subscription<ChangeSet>] = [:]
  /// Synchronous listeners of the change sets (`ModelAnchor.listen`).
  let relay = ChangeSetRelay()
  /// How many listeners the relay has; changed under the lock.
  @exclusivity(unchecked) private var listenerCount = 0
  /// The ids of subscriptions, listeners and taps.
  @exclusivity(unchecked) private var nextID = 0

  // MARK: Modifications (testers, `observeModifications`)

  /// Synchronous listeners of modifications.
  @exclusivity(unchecked) private var modificationTaps: [Int: @Sendable (ModificationBatch) -> Void] = [:]
  /// Storage writes and parent changes of the open transaction, noted while someone listens.
  @exclusivity(unchecked) var pendingModifications: [ModificationRecord] = []
  /// How many testers capture the states of written models (`.transitions`).
  @exclusivity(unchecked) var stateCaptures = 0
  /// The states of the models written in the open transaction, before their first write.
  @exclusivity(unchecked) var capturedBefore: [RecordedStates.Key: any Sendable] = [:]
  /// The properties whose writes `observeModifications` and `observeAnyModification`
  /// ignore, by model (`node.excludeFromModifications`); an entry goes when its model is
  /// destructed.
  @exclusivity(unchecked) var excludedFromModifications: [ModelID: Set<String>] = [:]
  /// How many listeners and taps need each commit's ``ModificationOrigin`` (the streams
  /// of modifications, which ignore their own writes); none: it is not computed.
  @exclusivity(unchecked) private var originNoters = 0

  // MARK: Undo

  /// Undo tracking (`node.trackUndo`, `node.undoSystem`); nil until first used.
  @exclusivity(unchecked) var undo: UndoRecorder?

  // MARK: Events

  @exclusivity(unchecked) private var eventSubscribers: [Int: Subscription<EmittedEvent>] = [:]
  /// Synchronous event listeners (testers).
  @exclusivity(unchecked) private var eventTaps: [Int: @Sendable (EmittedEvent) -> Void] = [:]

  // MARK: Calls and the host

  /// How many ``IntentDispatcher`` calls are under way: while there are none and nobody
  /// records, a commit does not look up its cause (a task-local read per write), and an
  /// event carries no intent's work. An atomic, not a field under the lock: a call adds and
  /// removes itself without taking the lock.
  let tracingCalls = Atomic<Int>(0)
  /// Whether anything ever followed the tree's change sets (a subscription or a listener:
  /// a daemon's journal and watchers). Set once and kept: it only decides, without the
  /// lock, whether an event's handler needs the cause its change sets would carry.
  let changeSetsFollowed = Atomic<Bool>(false)
  /// Retired by its host (``ModelAnchor/retire()``): commits are no longer delivered.
  @exclusivity(unchecked) var retired = false

  init(lock: TreeLock) {
    self.lock = lock
  }

  // MARK: What a commit needs

  /// Whether changes are recorded as they are written (someone follows the change sets,
  /// undo tracks, or a tap listens).
  var isRecording: Bool {
    !subscribers.isEmpty || listenerCount > 0 || (undo?.isTracking ?? false) || !modificationTaps.isEmpty
  }
  /// Whether modifications are noted (someone listens).
  var recordsModifications: Bool { !modificationTaps.isEmpty }
  /// Whether sent events are published.
  var hasEventSubscribers: Bool { !eventSubscribers.isEmpty || !eventTaps.isEmpty }

  /// Whether no follower needs a transaction that changed nothing: no undo, no tap, no
  /// state captured.
  @inline(__always)
  var ignoresTransactions: Bool { undo == nil && modificationTaps.isEmpty && capturedBefore.isEmpty }

  /// Whether no follower needs a transaction that changed the state either: nobody
  /// records, and no traced call is under way.
  @inline(__always)
  var ignoresChanges: Bool { !isRecording && tracingCalls.load(ordering: .relaxed) == 0 }

  /// Hands the transaction being committed to the followers: undo records its step, the
  /// taps get its modifications, and when it changed the state (`changed`, committing
  /// `revision`), the call that made it is told and the subscribers and listeners get its
  /// change set. What is to run once the lock is released goes into `work`; returns
  /// whether anything did. Lock held.
  func commit(changed: Bool, changes: [Change], revision: UInt64, into work: inout PostCommitWork) -> Bool {
    var followed = false
    if undo?.didCommit(changed: changed, changes: changes) ?? false {
      work.undo = undo
      followed = true
    }
    if recordsModifications,
      let batch = takeModifications(
        changes: changed ? changes : [], revision: revision, origin: originNoters > 0 ? ModificationOrigin.current() : nil)
    {
      work.modifications = (Array(modificationTaps.values), batch)
      followed = true
    }
    if !capturedBefore.isEmpty { capturedBefore = [:] }
    guard changed else { return followed }
    // What the commit did to a kept undo history goes with its change set (taken here even
    // when nobody records, so that it never carries over to the next commit).
    let undoHistory = undo?.takeHistoryChanges() ?? []
    // Outlined: a tree nobody records and no intent call traces pays one test here.
    if (isRecording || tracingCalls.load(ordering: .relaxed) > 0)
      && deliver(revision: revision, changes: changes, undoHistory: undoHistory)
    {
      work.relay = relay
      followed = true
    }
    return followed
  }

  /// Tells `revision` to the call that made it (its trace), and hands its change set to the
  /// subscribers and listeners; returns whether the listeners have it queued. Lock held.
  @inline(never)
  private func deliver(revision: UInt64, changes: [Change], undoHistory: [UndoHistoryChange]) -> Bool {
    let cause = ChangeCause.current
    cause?.trace?.committed(revision, discarded: retired)
    guard isRecording, !retired else { return false }
    let changeSet = ChangeSet(
      revision: revision, changes: changes, cause: cause, origin: originNoters > 0 ? ModificationOrigin.current() : nil,
      undoHistory: undoHistory)
    var ended: [Int] = []
    for (id, subscription) in subscribers where !subscription.yield(changeSet) { ended.append(id) }
    for id in ended { subscribers.removeValue(forKey: id) }
    guard listenerCount > 0 else { return false }
    relay.enqueue(changeSet)
    return true
  }

  // MARK: Joining and leaving

  /// Subscribes to the change sets committed after `revision`. Lock held.
  func subscribe(after revision: UInt64, limit: Int) -> ChangeSets {
    changeSetsFollowed.store(true, ordering: .relaxed)
    return ChangeSets(startRevision: revision, handle: register(in: \.subscribers, limit: limit))
  }

  /// Adds a synchronous listener of the change sets committed after `revision`. Lock held;
  /// the returned listener takes it when it is removed.
  func listen(after revision: UInt64, limit: Int, notingOrigins: Bool, _ body: @escaping ChangeSetRelay.Body) -> ChangeSetListener {
    changeSetsFollowed.store(true, ordering: .relaxed)
    listenerCount += 1
    if notingOrigins { originNoters += 1 }
    let id = relay.add(after: revision, limit: limit, body)
    return ChangeSetListener(relay: relay, id: id) { [weak self] in
      guard let self else { return }
      self.lock.withLock {
        self.listenerCount -= 1
        if notingOrigins { self.originNoters -= 1 }
      }
    }
  }

  /// Subscribes to the events sent in the tree. Takes the lock.
  func subscribeEvents(limit: Int) -> EmittedEvents {
    lock.withLock { EmittedEvents(handle: register(in: \.eventSubscribers, limit: limit)) }
  }

  /// Adds a subscription to one of the subscriber tables; releasing the returned handle
  /// removes it. Lock held.
  private func register<Element>(
    in table: ReferenceWritableKeyPath<CommitFanOut, [Int: Subscription<Element>]> & Sendable, limit: Int
  ) -> SubscriptionHandle<Element> {
    let id = nextID
    nextID += 1
    let subscription = Subscription<Element>(limit: limit) { [weak self] in
      guard let self else { return }
      self.lock.withLock { _ = self[keyPath: table].removeValue(forKey: id) }
    }
    self[keyPath: table][id] = subscription
    return SubscriptionHandle(subscription)
  }

  /// Adds a synchronous event listener. Takes the lock.
  func addEventTap(_ body: @escaping @Sendable (EmittedEvent) -> Void) -> Int {
    lock.withLock {
      defer { nextID += 1 }
      eventTaps[nextID] = body
      return nextID
    }
  }

  /// Removes a synchronous event listener. Takes the lock.
  func removeEventTap(_ id: Int) {
    lock.withLock { _ = eventTaps.removeValue(forKey: id) }
  }

  /// Adds a synchronous modification listener. Takes the lock.
  func addModificationTap(notingOrigins: Bool = false, _ body: @escaping @Sendable (ModificationBatch) -> Void) -> Int {
    lock.withLock {
      defer { nextID += 1 }
      modificationTaps[nextID] = body
      if notingOrigins { originNoters += 1 }
      return nextID
    }
  }

  /// Removes a synchronous modification listener. Takes the lock.
  func removeModificationTap(_ id: Int, notingOrigins: Bool = false) {
    lock.withLock {
      _ = modificationTaps.removeValue(forKey: id)
      if notingOrigins { originNoters -= 1 }
      if modificationTaps.isEmpty { pendingModifications = [] }
    }
  }

  // MARK: Events

  /// Hands an event to the event taps, then to the event subscribers.
  func publish(_ event: EmittedEvent) {
    let (taps, subscriptions) = lock.withLock { (Array(eventTaps.values), Array(eventSubscribers)) }
    for tap in taps { tap(event) }
    let ended = subscriptions.filter { !$0.value.yield(event) }.map(\.key)
    guard !ended.isEmpty else { return }
    lock.withLock { for id in ended { eventSubscribers.removeValue(forKey: id) } }
  }

  /// Ends every subscription (the tree was torn down).
  func finishSubscribers() {
    let (changes, events) = lock.withLock {
      let all = (Array(subscribers.values), Array(eventSubscribers.values))
      subscribers = [:]
      eventSubscribers = [:]
      return all
    }
    for subscription in changes { subscription.finish() }
    for subscription in events { subscription.finish() }
  }
}
