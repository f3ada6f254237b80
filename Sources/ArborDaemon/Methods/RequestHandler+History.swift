import ArborJSON
import ArborRPC
import ArborStore
import Foundation

/// The methods that read the store: `history.changes` and `state.at`. Their parameters are
/// checked where the request arrived; the reading runs in a task, on GRDB's reader threads.
extension RequestHandler {
  /// The most revisions one `history.changes` returns.
  static let maxHistoryPage = 10_000

  /// The work of a method that reads the store, nil for every other method.
  func deferred(_ method: Method, _ params: Params) throws(RPCError) -> (@Sendable () async -> Result<JSONValue, RPCError>)? {
    switch method {
    case .historyChanges:
      let since = try params.revision("since")
      let limit = try params.integer("limit") ?? 100
      guard (1...Self.maxHistoryPage).contains(limit) else {
        throw RPCError.invalidParams(
          "parameter 'limit' of history.changes must be between 1 and \(Self.maxHistoryPage); it is \(limit)",
          data: ["name": .string(ArborError.invalidParameter.name), "parameter": "limit", "expected": .string("an integer from 1 to \(Self.maxHistoryPage)")])
      }
      return { await self.historyChanges(since: since, limit: limit) }
    case .stateAt:
      guard let revision = try params.revision("revision") else {
        throw params.missing("revision", expected: "a revision (an integer ≥ 0)")
      }
      let path = try params.pointer("path")
      let current = host.revision
      guard revision <= current else {
        throw RPCError.invalidParams(
          "'revision' is \(revision) but the tree is at revision \(current)",
          data: ["name": .string(ArborError.invalidParameter.name), "parameter": "revision", "current": .int(Int64(current))])
      }
      return { await self.state(at: revision, path: path) }
    default:
      return nil
    }
  }

  private func historyChanges(since: UInt64?, limit: Int) async -> Result<JSONValue, RPCError> {
    let current = host.revision
    do {
      // Revisions still waiting for the window of --fsync batch are written first.
      try await journal.writer.durable(through: current)
      let oldest = try journal.store.snapshotRevisions().first ?? current
      let after = since ?? oldest
      guard after >= oldest else { throw ArborErrors.revisionCompacted(since: after, oldest: oldest, current: current) }
      let page = try await journal.store.journal(since: after, limit: limit + 1)
      let entries = page.prefix(limit)
      let changes: [JSONValue] = entries.map { entry in
        [
          "revision": .int(Int64(entry.revision)),
          "time": .string(entry.time.formatted(Self.timeFormat)),
          "intent": entry.intent.map(JSONValue.string) ?? .null,
          "target": entry.target.map(JSONValue.string) ?? .null,
          "patch": (try? JSONValueEncoder().encode(entry.patch)) ?? .null,
        ]
      }
      var result: [String: JSONValue] = [
        "changes": .array(changes), "oldest": .int(Int64(oldest)), "revision": .int(Int64(current)),
      ]
      // Where the next page starts, when there is one.
      result["next"] = page.count > limit ? entries.last.map { .int(Int64($0.revision)) } ?? .null : .null
      return .success(.object(result))
    } catch let error as RPCError {
      return .failure(error)
    } catch {
      return .failure(RPCError.internalError("the journal could not be read: \(error)"))
    }
  }

  private func state(at revision: UInt64, path: JSONPointer) async -> Result<JSONValue, RPCError> {
    do {
      try await journal.writer.durable(through: revision)
      guard let record = try await journal.store.state(at: revision) else {
        let oldest = try journal.store.snapshotRevisions().first ?? host.revision
        throw ArborErrors.revisionCompacted(since: revision, oldest: oldest, current: host.revision)
      }
      guard let value = try? path.resolve(in: record.state) else { throw ArborErrors.pathNotFound(path.description) }
      return .success(["revision": .int(Int64(revision)), "value": value, "time": .string(record.createdAt.formatted(Self.timeFormat))])
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
    let reply: ([String: JSONValue]) -> [UInt8] = { Self.replyLine(id: id, result: .object($0)) }
    do {
      // The hub's history moves on while the journal is read: a few rounds at most.
      for _ in 0..<5 {
        let target = max(since, hub.oldestReplayable)
        guard since < target || !scope.tokens.isEmpty else { break }
        try await journal.writer.durable(through: target)
        guard let record = try await journal.store.state(at: since) else {
          let oldest = try journal.store.snapshotRevisions().first ?? host.revision
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
    outbox: Outbox, scope: JSONPointer, since: UInt64, backfill: WatchHub.Backfill, reply: ([String: JSONValue]) -> [UInt8]
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
