import ArborJSON
import ArborRPC
import ArborStorage
import Foundation

/// The methods that read the store: `history.changes` and `state.at`. Their parameters are
/// checked where the request arrived; the reading runs in a task, on GRDB's reader threads.
extension RequestHandler {
  /// `history.changes`: a page of the journal, read on GRDB's reader threads.
  func historyChanges(_ page: HistoryChanges.Params) async -> Result<JSONValue, RPCError> {
    let limit = page.limit ?? HistoryChanges.defaultLimit
    let current = host.revision
    do {
      // Revisions still waiting for the window of --fsync batch are written first.
      try await journal.writer.durable(through: current)
      let oldest = try await journal.oldestSnapshot() ?? current
      let after = page.since ?? oldest
      guard after >= oldest else { throw ArborErrors.revisionCompacted(since: after, oldest: oldest, current: current) }
      let entries = try await journal.store.journal(since: after, limit: limit + 1)
      let shown = entries.prefix(limit)
      let changes = shown.map { entry in
        HistoryChanges.Change(
          revision: entry.revision, time: entry.time.formatted(Self.timeFormat), intent: entry.intent, target: entry.target, patch: entry.patch)
      }
      // Where the next page starts, when there is one.
      let next = entries.count > limit ? shown.last?.revision : nil
      return Self.encoded(HistoryChanges.Result(changes: changes, oldest: oldest, revision: current, next: next))
    } catch let error as RPCError {
      return .failure(error)
    } catch {
      return .failure(RPCError.internalError("the journal could not be read: \(error)"))
    }
  }

  /// `state.at`: the state at a past revision, rebuilt from the journal.
  func state(at revision: UInt64, path: JSONPointer) async -> Result<JSONValue, RPCError> {
    do {
      try await journal.writer.durable(through: revision)
      guard let record = try await journal.store.state(at: revision) else {
        let oldest = try await journal.oldestSnapshot() ?? host.revision
        throw ArborErrors.revisionCompacted(since: revision, oldest: oldest, current: host.revision)
      }
      guard let value = try? path.resolve(in: record.state) else { throw ArborErrors.pathNotFound(path, in: record.state) }
      return Self.encoded(StateAt.Result(revision: revision, value: value, time: record.createdAt.formatted(Self.timeFormat)))
    } catch let error as RPCError {
      return .failure(error)
    } catch {
      return .failure(RPCError.internalError("the state at revision \(revision) could not be read: \(error)"))
    }
  }

  /// Starts a state watch from `since`, older than the hub's history: the revisions from
  /// `since` to where the hub's history begins are read back from the journal, and the
  /// watcher gets each one exactly once, then the hub's, then the live ones.
  func resumeWatch(since: UInt64, scope: JSONPointer, outbox: Outbox, id: RPCID?) async -> Result<JSONValue, RPCError>? {
    let reply: (JSONValue) -> [UInt8] = { Self.replyLine(id: id, result: $0) }
    do {
      // The hub's history moves on while the journal is read: a few rounds at most.
      for _ in 0..<5 {
        let target = max(since, hub.oldestReplayable)
        guard since < target || !scope.tokens.isEmpty else { break }
        try await journal.writer.durable(through: target)
        guard let record = try await journal.store.state(at: since) else {
          let oldest = try await journal.oldestSnapshot() ?? host.revision
          throw ArborErrors.revisionCompacted(since: since, oldest: oldest, current: host.revision)
        }
        var revisions: [WatchHub.Revision] = []
        var document = record.state
        var cursor = since
        while cursor < target {
          let page = try await journal.store.journal(since: cursor, limit: Int(min(10_000, target - cursor)))
          guard !page.isEmpty else { break }
          for entry in page {
            guard entry.revision == cursor + 1 else {
              throw RPCError.internalError("the journal has no revision \(cursor + 1); watch without 'since'")
            }
            try entry.patch.apply(to: &document)
            revisions.append(WatchHub.Revision(revision: entry.revision, operations: entry.patch.operations, document: document))
            cursor = entry.revision
          }
        }
        let backfill = WatchHub.Backfill(since: since, base: record.state, revisions: revisions)
        let attempt = watch(outbox: outbox, scope: scope, since: since, backfill: backfill, reply: reply)
        switch attempt {
        case .success: return nil
        case .failure(let error) where error.code == ArborErrorCode.revisionCompacted: continue
        case .failure(let error): throw error
        }
      }
      try hub.watchState(outbox: outbox, scope: scope, since: since, treeRevision: host.revision, reply: reply)
      return nil
    } catch let error as RPCError {
      return .failure(error)
    } catch {
      return .failure(RPCError.internalError("the journal could not be read: \(error)"))
    }
  }

  private func watch(
    outbox: Outbox, scope: JSONPointer, since: UInt64, backfill: WatchHub.Backfill, reply: (JSONValue) -> [UInt8]
  ) -> Result<Void, RPCError> {
    do throws(RPCError) {
      try hub.watchState(outbox: outbox, scope: scope, since: since, treeRevision: host.revision, backfill: backfill, reply: reply)
      return .success(())
    } catch {
      return .failure(error)
    }
  }

  static var timeFormat: Date.ISO8601FormatStyle { Date.ISO8601FormatStyle(includingFractionalSeconds: true) }
}
