import NIOConcurrencyHelpers
import Arbor
import ArborJSON
import ArborRPC
import Logging
import Synchronization

/// Fans the tree's revisions and events out to the watches of every connection.
///
/// The hub keeps its own copy of the state as JSON, current by applying each revision's
/// patch in place, and the patches of the last `historyLimit` revisions (no copy of the
/// state per revision: a change to one member of a large array costs no copy of the
/// array). A watch's first reply and every later
/// notification are queued under the hub's lock, in revision order, so a watcher that
/// applies the patches to the first value holds exactly the state of each revision.
final class WatchHub: Sendable {
  private struct StateWatch {
    let outbox: Outbox
    let scope: JSONPointer
    /// Revisions up to this one are already in what the watcher has.
    var skipThrough: UInt64
    /// Its notifications were coalesced: nothing more is queued until the resync is sent.
    var awaitingResync = false
  }

  private struct EventWatch {
    let outbox: Outbox
    let scope: String
    let types: Set<String>?
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
    /// Oldest first; at most `historyLimit`.
    var history: [Revision] = []
    var historyStart = 0
    var stateWatches: [Int: StateWatch] = [:]
    var eventWatches: [Int: EventWatch] = [:]
    var nextSubscription = 1
  }

  let historyLimit: Int
  private let logger: Logger
  private let state = NIOLockedValueBox(State())

  init(historyLimit: Int, logger: Logger) {
    self.historyLimit = max(0, historyLimit)
    self.logger = logger
  }

  var revision: UInt64 { state.withLockedValue { $0.revision } }
  /// The hub's copy of the state and its revision (a copy-on-write value: taking it costs
  /// nothing, and the hub's next change copies only what it changes).
  var current: (revision: UInt64, document: JSONValue) { state.withLockedValue { ($0.revision, $0.document) } }
  /// The oldest `since` a state watch can start from without the journal.
  var oldestReplayable: UInt64 { state.withLockedValue { Self.oldestReplayable($0) } }

  private static func oldestReplayable(_ state: State) -> UInt64 {
    (ordered(state).first?.revision ?? state.revision + 1) - 1
  }
  var subscriptionCount: Int { state.withLockedValue { $0.stateWatches.count + $0.eventWatches.count } }

  // MARK: - Feeding the hub

  /// Starts over from `document` at `revision` (at start, after a restore, or when the hub
  /// fell behind the tree): the history is dropped and every state watch gets a resync.
  func reset(document: JSONValue, revision: UInt64) {
    state.withLockedValue { state in
      state.document = document
      state.revision = revision
      state.history = []
      state.historyStart = 0
      for (subscription, watch) in state.stateWatches where !watch.awaitingResync {
        watch.outbox.replaceWithResync(subscription: subscription)
        state.stateWatches[subscription]?.awaitingResync = true
      }
    }
  }

  /// Applies one committed revision and queues its notifications. Returns false when the
  /// patch does not apply to the hub's copy (the caller then resets the hub from the tree).
  @discardableResult
  func apply(revision: UInt64, operations: [JSONPatchOperation]) -> Bool {
    state.withLockedValue { state in
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
      for (subscription, watch) in state.stateWatches where !watch.awaitingResync && revision > watch.skipThrough {
        let line: [UInt8]
        if watch.scope.tokens.isEmpty {
          if rootPatch == nil { rootPatch = NotificationBytes.patchJSON(operations) }
          line = NotificationBytes.stateChanged(patchJSON: rootPatch!, revision: revision, subscription: subscription)
        } else {
          let patch: NotificationBytes.Patch?
          if let known = scoped[watch.scope] {
            patch = known
          } else {
            patch = before.flatMap { NotificationBytes.Patch(ScopedPatch.scope(operations, to: watch.scope, before: $0, after: after)) }
            scoped[watch.scope] = patch
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
    guard event.isExportable, let payload = Self.encode(event.event) else { return }
    let source = event.sourcePath.description
    state.withLockedValue { state in
      guard !state.eventWatches.isEmpty else { return }
      let params: JSONValue = [
        "revision": .int(Int64(event.revision)),
        "source": ["id": .string(event.source.description), "path": .string(source), "type": .string(event.sourceType)],
        "type": .string(event.type),
        "event": payload,
      ]
      for (subscription, watch) in state.eventWatches {
        guard source == watch.scope || watch.scope.isEmpty || source.hasPrefix(watch.scope + "/") else { continue }
        if let types = watch.types, !types.contains(event.type) { continue }
        var withSubscription = params
        if case .object(var members) = withSubscription {
          members["subscription"] = .int(Int64(subscription))
          withSubscription = .object(members)
        }
        do throws(Outbox.Refusal) {
          try watch.outbox.notify(NotificationBytes.notification(ArborNotification.eventsEmitted.rawValue, withSubscription), subscription: subscription)
        } catch .watchFull {
          state.eventWatches[subscription] = nil
          watch.outbox.send(NotificationBytes.notification(ArborNotification.watchClosed.rawValue, [
            "subscription": .int(Int64(subscription)),
            "reason": .string("the event watch fell \(watch.outbox.watchLimit) events behind and was closed; watch again to continue"),
          ]))
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
    reply: ([String: JSONValue]) -> [UInt8]
  ) throws(RPCError) {
    // NIO's lock takes no typed-throwing closure: the error comes out as a result.
    let outcome: Result<Void, RPCError> = state.withLockedValue { state in
      do throws(RPCError) {
        let subscription = state.nextSubscription
        if let since {
          guard since <= treeRevision else {
            throw RPCError.invalidParams(
              "'since' is \(since) but the tree is at revision \(treeRevision)",
              data: ["name": .string(ArborError.invalidParameter.name), "parameter": "since", "current": .int(Int64(treeRevision))])
          }
          var history = Self.ordered(state).filter { $0.revision > since }
          let oldestReplayable = Self.oldestReplayable(state)
          // A path watch replays from the state at `since`, read back from the journal.
          var previous: JSONValue?
          if let backfill, backfill.since == since, backfill.newest >= oldestReplayable || backfill.newest >= state.revision {
            history = backfill.revisions + history.filter { $0.revision > backfill.newest }
            previous = backfill.base
          } else if since < oldestReplayable && since < state.revision {
            throw RPCError(
              code: ArborErrorCode.revisionCompacted, name: ArborError.revisionCompacted.name,
              message: "revision \(since) is older than the history kept (from \(oldestReplayable)); read the state again with state.get or watch without 'since'",
              details: ["since": .int(Int64(since)), "oldest": .int(Int64(oldestReplayable)), "current": .int(Int64(state.revision))])
          }
          if !scope.tokens.isEmpty, (try? scope.resolve(in: state.document)) == nil {
            throw ArborErrors.pathNotFound(scope.description)
          }
          state.nextSubscription += 1
          let watch = StateWatch(outbox: outbox, scope: scope, skipThrough: max(since, state.revision))
          outbox.send(reply(["subscription": .int(Int64(subscription)), "revision": .int(Int64(since))]))
          if !scope.tokens.isEmpty && previous == nil, !history.isEmpty {
            // A path watch with no state at `since` (the tree moved on since the request
            // was read): the value as it is now, at the current revision.
            history = []
            if let line = Self.line(for: .value(try? scope.resolve(in: state.document)), revision: state.revision, subscription: subscription) {
              outbox.send(line)
            }
          }
          for entry in history where entry.revision > since {
            let view: ScopedPatch
            if scope.tokens.isEmpty {
              view = .operations(entry.operations)
            } else if let before = previous {
              // Revisions of the hub's own history carry no state: it follows from the
              // state before and the patch.
              let after: JSONValue
              if let document = entry.document {
                after = document
              } else {
                var next = before
                guard (try? JSONPatch(entry.operations).apply(to: &next)) != nil else {
                  throw RPCError.internalError("revision \(entry.revision) does not apply to the state read back; watch without 'since'")
                }
                after = next
              }
              view = ScopedPatch.scope(entry.operations, to: scope, before: before, after: after)
              previous = after
            } else {
              view = .value(try? scope.resolve(in: state.document))
            }
            if let line = Self.line(for: view, revision: entry.revision, subscription: subscription) {
              outbox.send(line)
            }
          }
          state.stateWatches[subscription] = watch
        } else {
          let value: JSONValue
          do {
            value = try scope.resolve(in: state.document)
          } catch {
            throw ArborErrors.pathNotFound(scope.description)
          }
          state.nextSubscription += 1
          state.stateWatches[subscription] = StateWatch(outbox: outbox, scope: scope, skipThrough: state.revision)
          outbox.send(reply([
            "subscription": .int(Int64(subscription)), "revision": .int(Int64(state.revision)), "value": value,
          ]))
        }
          return .success(())
      } catch {
        return .failure(error)
      }
    }
    try outcome.get()
  }

  /// Registers an event watch and queues its reply.
  func watchEvents(outbox: Outbox, scope: JSONPointer, types: Set<String>?, reply: ([String: JSONValue]) -> [UInt8]) {
    state.withLockedValue { state in
      let subscription = state.nextSubscription
      state.nextSubscription += 1
      state.eventWatches[subscription] = EventWatch(outbox: outbox, scope: scope.description, types: types)
      outbox.send(reply(["subscription": .int(Int64(subscription))]))
    }
  }

  /// Ends a watch of this connection; false when it has none with that number.
  func cancel(subscription: Int, of outbox: Outbox) -> Bool {
    state.withLockedValue { state in
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

  /// Whether a connection has watches.
  func hasWatches(of outbox: Outbox) -> Bool {
    state.withLockedValue { state in
      state.stateWatches.values.contains { $0.outbox === outbox } || state.eventWatches.values.contains { $0.outbox === outbox }
    }
  }

  /// Ends every watch of a connection that went away.
  func removeAll(of outbox: Outbox) {
    state.withLockedValue { state in
      state.stateWatches = state.stateWatches.filter { $0.value.outbox !== outbox }
      state.eventWatches = state.eventWatches.filter { $0.value.outbox !== outbox }
    }
  }

  /// The resync line of a coalesced state watch, built now: its value at the hub's
  /// revision. Later revisions follow it. Nil when the watch has ended.
  func resyncLine(subscription: Int) -> [UInt8]? {
    state.withLockedValue { state in
      guard var watch = state.stateWatches[subscription] else { return nil }
      watch.awaitingResync = false
      watch.skipThrough = state.revision
      state.stateWatches[subscription] = watch
      let value = try? watch.scope.resolve(in: state.document)
      var params: [String: JSONValue] = [
        "subscription": .int(Int64(subscription)), "revision": .int(Int64(state.revision)),
        "value": value ?? .null, "resync": true,
      ]
      if value == nil { params["exists"] = false }
      return NotificationBytes.notification(ArborNotification.stateChanged.rawValue, .object(params))
    }
  }

  // MARK: - Helpers (lock held)

  private func deliver(_ line: [UInt8], to subscription: Int, watch: StateWatch, in state: inout State) {
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

  private static func record(_ entry: Revision, in state: inout State, limit: Int) {
    guard limit > 0 else { return }
    if state.history.count < limit {
      state.history.append(entry)
    } else {
      state.history[state.historyStart] = entry
      state.historyStart = (state.historyStart + 1) % limit
    }
  }

  private static func ordered(_ state: State) -> [Revision] {
    Array(state.history[state.historyStart...] + state.history[..<state.historyStart])
  }

  private static func encode(_ event: any Sendable) -> JSONValue? {
    guard let encodable = event as? any Encodable else { return nil }
    return try? JSONValueEncoder().encode(encodable)
  }
}
