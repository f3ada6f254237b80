import ArborLocking
import Arbor
import ArborJSON
import ArborRPC
import Logging
import NIOCore
import Synchronization

/// Fans the tree's revisions and events out to the watches of every connection.
///
/// The hub keeps its own copy of the state as JSON, current by applying each revision's
/// patch in place, and the patches of the last `historyLimit` revisions in a ring buffer
/// (NIO's `CircularBuffer`; no copy of the state per revision: a change to one member of a
/// large array costs no copy of the array). A watch's first reply and every later
/// notification are queued under the hub's lock, in revision order, so a watcher that
/// applies the patches to the first value holds exactly the state of each revision.
final class WatchHub: Sendable {
  private struct StateWatchEntry {
    let outbox: Outbox
    let scope: JSONPointer
    /// Revisions up to this one are already in what the watcher has.
    var skipThrough: UInt64
    /// Its notifications were coalesced: nothing more is queued until the resync is sent.
    var awaitingResync = false

    func handed(as subscription: Int) -> HandedWatch {
      HandedWatch(subscription: subscription, kind: .state, scope: scope.description, types: nil, awaitingResync: awaitingResync)
    }
  }

  private struct EventWatchEntry {
    let outbox: Outbox
    let scope: String
    let types: Set<String>?

    func handed(as subscription: Int) -> HandedWatch {
      HandedWatch(subscription: subscription, kind: .events, scope: scope, types: types?.sorted(), awaitingResync: false)
    }
  }

  /// One revision: its patch, and (read back from the journal) the state after it.
  struct Revision {
    let revision: UInt64
    let operations: [JSONPatchOperation]
    var document: JSONValue? = nil
  }

  /// Revisions older than the hub's history, read back from the journal, for a watch that
  /// resumes from before the hub started (across a restart): the state at `since` and the
  /// revisions after it, up to where the hub's history takes over.
  struct Backfill {
    let since: UInt64
    let base: JSONValue
    let revisions: [Revision]
    var newest: UInt64 { revisions.last?.revision ?? since }
  }

  private struct State {
    var document: JSONValue = .null
    var revision: UInt64 = 0
    /// The document is the tree's (it was reset once).
    var holdsState = false
    /// Oldest first; at most `historyLimit`.
    var history = CircularBuffer<Revision>()
    var stateWatches: [Int: StateWatchEntry] = [:]
    var eventWatches: [Int: EventWatchEntry] = [:]
    var nextSubscription = 1
  }

  let historyLimit: Int
  private let logger: Logger
  private let state = LockedState(State())
  /// Resyncs sent to state watches that fell behind, since the daemon started (`/metrics`).
  let resyncsSent = Atomic<Int>(0)
  /// Event watches closed because their reader fell behind, since the daemon started.
  let watchesClosed = Atomic<Int>(0)

  init(historyLimit: Int, logger: Logger) {
    self.historyLimit = max(0, historyLimit)
    self.logger = logger
  }

  var revision: UInt64 { state.withLock { $0.revision } }
  /// The hub's copy of the state and its revision (a copy-on-write value: taking it costs
  /// nothing, and the hub's next change copies only what it changes).
  var current: (revision: UInt64, document: JSONValue) { state.withLock { ($0.revision, $0.document) } }
  /// The oldest `since` a state watch can start from without the journal.
  var oldestReplayable: UInt64 { state.withLock { Self.oldestReplayable($0) } }

  /// The hub's copy of the state when it has reached `revision`; nil before its first
  /// reset or while it is behind. A reader takes the copy (the hub's next change copies
  /// what it changes, not the whole document) and works on it outside the hub's lock and
  /// the tree's.
  ///
  /// ```swift
  /// if let (revision, document) = hub.state(atLeast: host.revision) { … }
  /// ```
  func state(atLeast revision: UInt64) -> (revision: UInt64, document: JSONValue)? {
    state.withLock { state in
      guard state.holdsState, state.revision >= revision else { return nil }
      return (state.revision, state.document)
    }
  }

  private static func oldestReplayable(_ state: State) -> UInt64 {
    (state.history.first?.revision ?? state.revision + 1) - 1
  }
  /// Whether the hub has its copy of the state (the change pump's first reset came).
  var holdsState: Bool { state.withLock { $0.holdsState } }

  var subscriptionCount: Int { state.withLock { $0.stateWatches.count + $0.eventWatches.count } }

  // MARK: - Feeding the hub

  /// Starts over from `document` at `revision` (at start, after a restore, or when the hub
  /// fell behind the tree): the history is dropped and every state watch gets a resync.
  func reset(document: JSONValue, revision: UInt64) {
    state.withLock { state in
      state.document = document
      state.revision = revision
      state.holdsState = true
      state.history = CircularBuffer()
      for (subscription, watch) in state.stateWatches where !watch.awaitingResync {
        watch.outbox.replaceWithResync(subscription: subscription)
        state.stateWatches[subscription]?.awaitingResync = true
      }
    }
  }

  /// Applies one committed revision and queues its notifications. Returns false when the
  /// patch does not apply to the hub's copy (the caller then resets the hub from the tree).
  /// `patchJSON`, when given, is `operations` as JSON text, already written for the
  /// journal: the root watchers' lines use it instead of encoding the patch again.
  @discardableResult
  func apply(revision: UInt64, operations: [JSONPatchOperation], patchJSON: [UInt8]? = nil) -> Bool {
    state.withLock { state in
      guard revision > state.revision else { return true }
      // What the path watches need of the state before: read now, since the patch is
      // applied in place.
      let scopes = state.stateWatches.values.lazy.filter { !$0.awaitingResync && !$0.scope.tokens.isEmpty }.map(\.scope)
      let before = scopes.isEmpty ? nil : ScopedPatch.Before(operations, scopes: scopes, in: state.document)
      do {
        try JSONPatch(operations).apply(to: &state.document)
      } catch {
        logger.error("revision \(revision)'s patch does not apply to the copy of revision \(state.revision): \(error)")
        return false
      }
      let after = state.document
      state.revision = revision
      Self.record(Revision(revision: revision, operations: operations), in: &state, limit: historyLimit)

      var rootPatch: [UInt8]?
      // Each scope's patch is worked out and written once, whatever the number of its
      // watchers; a watcher's line only adds its subscription.
      var scoped: [JSONPointer: NotificationBytes.Patch?] = [:]
      // The scope met last, with its patch: the watches of one path (a thousand clients of
      // one value) then compare tokens instead of hashing the path once each.
      var lastScoped: (scope: JSONPointer, patch: NotificationBytes.Patch?)?
      for (subscription, watch) in state.stateWatches where !watch.awaitingResync && revision > watch.skipThrough {
        let line: [UInt8]
        if watch.scope.tokens.isEmpty {
          if rootPatch == nil { rootPatch = patchJSON ?? NotificationBytes.patchJSON(operations) }
          line = NotificationBytes.stateChanged(patchJSON: rootPatch!, revision: revision, subscription: subscription)
        } else {
          let patch: NotificationBytes.Patch?
          if let lastScoped, lastScoped.scope == watch.scope {
            patch = lastScoped.patch
          } else if let known = scoped[watch.scope] {
            patch = known
            lastScoped = (watch.scope, known)
          } else {
            patch = before.flatMap { NotificationBytes.Patch(ScopedPatch.scope(operations, to: watch.scope, before: $0, after: after)) }
            scoped[watch.scope] = patch
            lastScoped = (watch.scope, patch)
          }
          guard let patch else { continue }
          let built = NotificationBytes.stateChanged(patchJSON: patch.json, revision: revision, subscription: subscription, extra: patch.extra)
          line = built
        }
        deliver(line, to: subscription, watch: watch, in: &state)
      }
      return true
    }
  }

  /// Queues an event for the event watches that want it.
  func publish(_ event: EmittedEvent) {
    guard let params = Self.params(of: event) else { return }
    publish(params)
  }

  /// The params of an event's notification (subscription 0); nil for an event that is not
  /// `Codable`, which does not leave the process.
  static func params(of event: EmittedEvent) -> EventsEmitted.Params? {
    guard event.isExportable, let payload = encode(event.event) else { return nil }
    return EventsEmitted.Params(
      subscription: 0, revision: event.revision, type: event.type, event: payload,
      source: EventsEmitted.Source(id: event.source.description, path: event.sourcePath.description, type: event.sourceType))
  }

  /// Queues an event, as its notification's params, for the event watches that want it
  /// (on a standby: an event the leader's models sent).
  func publish(_ event: EventsEmitted.Params) {
    let source = event.source.path
    state.withLock { state in
      guard !state.eventWatches.isEmpty else { return }
      // The params of every watcher's line; each only sets its subscription.
      var params = event
      for (subscription, watch) in state.eventWatches {
        guard source == watch.scope || watch.scope.isEmpty || source.hasPrefix(watch.scope + "/") else { continue }
        if let types = watch.types, !types.contains(event.type) { continue }
        params.subscription = subscription
        do throws(Outbox.Refusal) {
          try watch.outbox.notify(NotificationBytes.notification(EventsEmitted.notification.rawValue, params.jsonValue), subscription: subscription)
        } catch .watchFull {
          state.eventWatches[subscription] = nil
          watchesClosed.add(1, ordering: .relaxed)
          let closed = WatchClosed.Params(
            subscription: subscription,
            reason: "the event watch fell \(watch.outbox.watchLimit) events behind and was closed; watch again to continue")
          if let line = notificationLine(WatchClosed.self, closed) { watch.outbox.send(line) }
          logger.notice("event watch \(subscription) closed: its reader fell \(watch.outbox.watchLimit) events behind")
        } catch {
          state.eventWatches[subscription] = nil
        }
      }
    }
  }

  // MARK: - Watches

  /// Registers a state watch and queues its reply, then (with `since`) the revisions after
  /// `since` from the history. `reply` turns the result into the reply line.
  func watchState(
    outbox: Outbox, scope: JSONPointer, since: UInt64?, treeRevision: UInt64, backfill: Backfill? = nil,
    reply: (JSONValue) -> [UInt8]
  ) throws(RPCError) {
    let request = WatchRequest(outbox: outbox, scope: scope)
    // `withLock` rethrows untyped errors: the typed error comes out as a result.
    let outcome: Result<Void, RPCError> = state.withLock { state in
      Result { () throws(RPCError) in
        if let since {
          try Self.startWatch(request, since: since, treeRevision: treeRevision, backfill: backfill, reply: reply, in: &state)
        } else {
          try Self.startWatch(request, reply: reply, in: &state)
        }
      }
    }
    try outcome.get()
  }

  /// Who asks for a state watch and what it watches, handed from step to step under the lock.
  private struct WatchRequest {
    let outbox: Outbox
    let scope: JSONPointer

    var isPath: Bool { !scope.tokens.isEmpty }
  }

  /// The revisions a watch from `since` is sent after its reply, and the state at `since`
  /// when it is known (read back from the journal): what a path watch's patches start from.
  private struct Replay {
    var revisions: [Revision]
    var base: JSONValue?
  }

  // MARK: - Starting a state watch (lock held)

  /// A watch without `since`: its reply carries the value at the hub's revision.
  private static func startWatch(
    _ request: WatchRequest, reply: (JSONValue) -> [UInt8], in state: inout State
  ) throws(RPCError) {
    let value = try resolvedValue(of: request.scope, in: state)
    let subscription = takeSubscription(&state)
    state.stateWatches[subscription] = StateWatchEntry(outbox: request.outbox, scope: request.scope, skipThrough: state.revision)
    request.outbox.send(reply(StateWatchMethod.Result(subscription: subscription, revision: state.revision, value: value).jsonValue))
  }

  /// A watch from `since`: its reply names `since`, the revisions after it follow, then the
  /// watch takes the live ones.
  private static func startWatch(
    _ request: WatchRequest, since: UInt64, treeRevision: UInt64, backfill: Backfill?,
    reply: (JSONValue) -> [UInt8], in state: inout State
  ) throws(RPCError) {
    try checkSince(since, treeRevision: treeRevision)
    var replay = try Self.revisions(after: since, backfill: backfill, in: state)
    try checkPathExists(request.scope, in: state)
    let subscription = takeSubscription(&state)
    let watch = StateWatchEntry(outbox: request.outbox, scope: request.scope, skipThrough: max(since, state.revision))
    request.outbox.send(reply(StateWatchMethod.Result(subscription: subscription, revision: since).jsonValue))
    if request.isPath && replay.base == nil, !replay.revisions.isEmpty {
      replay.revisions = []
      sendCurrentValue(of: request, subscription: subscription, in: state)
    }
    try send(replay, after: since, to: request, subscription: subscription, in: state)
    state.stateWatches[subscription] = watch
  }

  /// Refuses a `since` the tree has not reached.
  private static func checkSince(_ since: UInt64, treeRevision: UInt64) throws(RPCError) {
    guard since <= treeRevision else {
      throw .revisionAhead(parameter: "since", revision: since, current: treeRevision)
    }
  }

  /// The revisions after `since`: the hub's history, after what `backfill` read back from
  /// the journal when it starts at `since` and reaches the history (or the hub's revision).
  /// Refuses a `since` older than both.
  private static func revisions(after since: UInt64, backfill: Backfill?, in state: State) throws(RPCError) -> Replay {
    let kept: [Revision] = state.history.filter { $0.revision > since }
    let oldestReplayable = Self.oldestReplayable(state)
    if let backfill, backfill.since == since, backfill.newest >= oldestReplayable || backfill.newest >= state.revision {
      return Replay(revisions: backfill.revisions + kept.filter { $0.revision > backfill.newest }, base: backfill.base)
    }
    if since < oldestReplayable && since < state.revision {
      throw .watchRevisionCompacted(since: since, oldest: oldestReplayable, current: state.revision)
    }
    return Replay(revisions: kept, base: nil)
  }

  /// Refuses a path watch whose path is not in the hub's copy.
  private static func checkPathExists(_ scope: JSONPointer, in state: State) throws(RPCError) {
    if !scope.tokens.isEmpty, (try? scope.resolve(in: state.document)) == nil {
      throw ArborErrors.pathNotFound(scope.description)
    }
  }

  /// The value at `scope` in the hub's copy; a missing path is refused.
  private static func resolvedValue(of scope: JSONPointer, in state: State) throws(RPCError) -> JSONValue {
    do {
      return try scope.resolve(in: state.document)
    } catch {
      throw ArborErrors.pathNotFound(scope.description)
    }
  }

  /// The next subscription number, taken.
  private static func takeSubscription(_ state: inout State) -> Int {
    defer { state.nextSubscription += 1 }
    return state.nextSubscription
  }

  /// A path watch with no state at `since` (the tree moved on since the request was read)
  /// is sent the value as it is now, at the hub's revision, instead of the revisions.
  private static func sendCurrentValue(of request: WatchRequest, subscription: Int, in state: State) {
    let value = try? request.scope.resolve(in: state.document)
    if let line = Self.line(for: .value(value), revision: state.revision, subscription: subscription) {
      request.outbox.send(line)
    }
  }

  /// Queues the replayed revisions after `since`, each as the watch sees it.
  private static func send(
    _ replay: Replay, after since: UInt64, to request: WatchRequest, subscription: Int, in state: State
  ) throws(RPCError) {
    var previous = replay.base
    for entry in replay.revisions where entry.revision > since {
      let seen = try Self.view(of: entry, for: request.scope, previous: &previous, in: state)
      if let line = Self.line(for: seen, revision: entry.revision, subscription: subscription) {
        request.outbox.send(line)
      }
    }
  }

  /// One replayed revision as a watch of `scope` sees it. A path watch's patch is worked out
  /// from the state before (`previous`, moved on to the state after) and the patch.
  private static func view(
    of entry: Revision, for scope: JSONPointer, previous: inout JSONValue?, in state: State
  ) throws(RPCError) -> ScopedPatch {
    if scope.tokens.isEmpty { return .operations(entry.operations) }
    guard let before = previous else { return .value(try? scope.resolve(in: state.document)) }
    let after = try document(after: entry, from: before)
    previous = after
    return ScopedPatch.scope(entry.operations, to: scope, before: before, after: after)
  }

  /// The state after `entry`: read back with it from the journal, or (revisions of the hub's
  /// own history carry no state) the state before with its patch applied.
  private static func document(after entry: Revision, from before: JSONValue) throws(RPCError) -> JSONValue {
    if let document = entry.document { return document }
    var next = before
    guard (try? JSONPatch(entry.operations).apply(to: &next)) != nil else {
      throw RPCError.internalError("revision \(entry.revision) does not apply to the state read back; watch without 'since'")
    }
    return next
  }

  /// Registers an event watch and queues its reply.
  func watchEvents(outbox: Outbox, scope: JSONPointer, types: Set<String>?, reply: (JSONValue) -> [UInt8]) {
    state.withLock { state in
      let subscription = state.nextSubscription
      state.nextSubscription += 1
      state.eventWatches[subscription] = EventWatchEntry(outbox: outbox, scope: scope.description, types: types)
      outbox.send(reply(EventsWatch.Result(subscription: subscription).jsonValue))
    }
  }

  /// Ends a watch of this connection; false when it has none with that number.
  func cancel(subscription: Int, of outbox: Outbox) -> Bool {
    state.withLock { state in
      if let watch = state.stateWatches[subscription], watch.outbox === outbox {
        state.stateWatches[subscription] = nil
        return true
      }
      if let watch = state.eventWatches[subscription], watch.outbox === outbox {
        state.eventWatches[subscription] = nil
        return true
      }
      return false
    }
  }

  /// Takes every watch out of the hub for a hand-over, by connection (the
  /// `ObjectIdentifier` of its outbox), with the revision they were sent up to: nothing
  /// more is queued for them here, and the next process registers them again
  /// (``restore(_:outbox:revision:)``). One pass under the lock, so that the revision and
  /// the watches agree, and a thousand connections cost a thousand entries' work, not a
  /// million.
  ///
  /// ```swift
  /// let (revision, watches) = hub.handOverAll()
  /// let handed = watches[ObjectIdentifier(outbox)] ?? []
  /// ```
  func handOverAll() -> (revision: UInt64, watches: [ObjectIdentifier: [HandedWatch]]) {
    state.withLock { state in
      var handed: [ObjectIdentifier: [HandedWatch]] = [:]
      for (subscription, watch) in state.stateWatches {
        handed[ObjectIdentifier(watch.outbox), default: []].append(watch.handed(as: subscription))
      }
      for (subscription, watch) in state.eventWatches {
        handed[ObjectIdentifier(watch.outbox), default: []].append(watch.handed(as: subscription))
      }
      state.stateWatches = [:]
      state.eventWatches = [:]
      for key in handed.keys { handed[key]!.sort { $0.subscription < $1.subscription } }
      return (state.revision, handed)
    }
  }

  /// Registers the watches a connection had in the process that handed it over, with
  /// their numbers, as of `revision` (the revision that process stopped at). A state watch
  /// goes on from the revision after it; one that waited for a resync, or whose revision
  /// is not the hub's, gets a resync first. Later watches take numbers after theirs.
  func restore(_ watches: [HandedWatch], outbox: Outbox, revision: UInt64) {
    state.withLock { state in
      for watch in watches {
        state.nextSubscription = max(state.nextSubscription, watch.subscription + 1)
        switch watch.kind {
        case .events:
          state.eventWatches[watch.subscription] = EventWatchEntry(outbox: outbox, scope: watch.scope, types: watch.types.map(Set.init))
        case .state:
          let scope = (try? JSONPointer(watch.scope)) ?? JSONPointer(tokens: [])
          var entry = StateWatchEntry(outbox: outbox, scope: scope, skipThrough: state.revision)
          if watch.awaitingResync || revision != state.revision {
            entry.awaitingResync = true
            outbox.replaceWithResync(subscription: watch.subscription)
          }
          state.stateWatches[watch.subscription] = entry
        }
      }
    }
  }

  /// Whether a connection has watches.
  func hasWatches(of outbox: Outbox) -> Bool {
    state.withLock { state in
      state.stateWatches.values.contains { $0.outbox === outbox } || state.eventWatches.values.contains { $0.outbox === outbox }
    }
  }

  /// Ends every watch of a connection that went away.
  func removeAll(of outbox: Outbox) {
    state.withLock { state in
      state.stateWatches = state.stateWatches.filter { $0.value.outbox !== outbox }
      state.eventWatches = state.eventWatches.filter { $0.value.outbox !== outbox }
    }
  }

  /// The resync line of a coalesced state watch, built now: its value at the hub's
  /// revision. Later revisions follow it. Nil when the watch has ended.
  func resyncLine(subscription: Int) -> [UInt8]? {
    state.withLock { state in
      guard var watch = state.stateWatches[subscription] else { return nil }
      resyncsSent.add(1, ordering: .relaxed)
      watch.awaitingResync = false
      watch.skipThrough = state.revision
      state.stateWatches[subscription] = watch
      let value = try? watch.scope.resolve(in: state.document)
      let params = StateChanged.Params(
        subscription: subscription, revision: state.revision, value: value ?? .null, resync: true, exists: value == nil ? false : nil)
      return notificationLine(StateChanged.self, params)
    }
  }

  // MARK: - Helpers (lock held)

  private func deliver(_ line: [UInt8], to subscription: Int, watch: StateWatchEntry, in state: inout State) {
    do throws(Outbox.Refusal) {
      try watch.outbox.notify(line, subscription: subscription)
    } catch .watchFull {
      watch.outbox.replaceWithResync(subscription: subscription)
      state.stateWatches[subscription]?.awaitingResync = true
    } catch {
      state.stateWatches[subscription] = nil
    }
  }

  private static func line(for view: ScopedPatch, revision: UInt64, subscription: Int) -> [UInt8]? {
    guard let patch = NotificationBytes.Patch(view) else { return nil }
    return NotificationBytes.stateChanged(patchJSON: patch.json, revision: revision, subscription: subscription, extra: patch.extra)
  }

  /// Keeps `entry` as the newest revision of the history, dropping the oldest once it holds
  /// `limit`.
  private static func record(_ entry: Revision, in state: inout State, limit: Int) {
    guard limit > 0 else { return }
    if state.history.count >= limit { state.history.removeFirst() }
    state.history.append(entry)
  }

  /// A notification's line, its params encoded by `JSONValueEncoder` (for the rare ones:
  /// a resync, a closed watch). Nil, and logged, when they do not encode, which the hub's
  /// values (JSON it read or built) cannot cause.
  private func notificationLine<Definition: ArborNotificationDefinition>(_ definition: Definition.Type, _ params: Definition.Params) -> [UInt8]? {
    // A resync holds the state: the hub's own values are not walked again for a
    // non-finite number (``JSONValueEncoder/trustsJSONValues``).
    do {
      return NotificationBytes.notification(Definition.notification.rawValue, try JSONValueEncoder.trustingJSONValues.encode(params))
    } catch {
      logger.error("the params of a \(Definition.notification.rawValue) notification could not be encoded: \(error)")
      return nil
    }
  }

  private static func encode(_ event: any Sendable) -> JSONValue? {
    guard let encodable = event as? any Encodable else { return nil }
    return try? JSONValueEncoder().encode(encodable)
  }
}
