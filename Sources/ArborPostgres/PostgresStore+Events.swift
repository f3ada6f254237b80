import ArborStorage
import Foundation
import PostgresNIO

/// The events the leader's models send, relayed to the standbys so that their
/// `events.watch` sees what the leader's does: the leader writes them in batches (a row of
/// `events` holds a JSON array, fenced by its term like the journal) and announces each
/// (`NOTIFY arbor_events`); a standby reads the rows after the newest it has seen. Rows are
/// kept a minute: an event watch is live, and a standby reads within a second. What a
/// daemon sees of it is ``StoreEventRelay``.
extension PostgresStore: StoreEventRelay {
  static let eventChannel = "arbor_events"
  /// How long a batch of events stays in the table.
  static let eventLifetime = "1 minute"

  /// For the leader: writes one batch of events (`batch`, a JSON array's text) in its term
  /// and announces it; now and then deletes the batches older than a minute. A daemon that
  /// does not lead, or no longer does, writes nothing and gets `superseded`.
  ///
  /// ```swift
  /// try await store.publishEvents(batch: #"[{"type":"Counter.Event","event":"tapped"}]"#)
  /// ```
  public func publishEvents(batch: String, prune: Bool = false) async throws(StoreError) {
    do {
      let term = self.term
      try await services.answering(within: Self.writeTimeout) { [self] connection in
        let rows = try await connection.query(
          """
          WITH leader AS (SELECT term FROM store_leader WHERE id = 1 AND term = \(term) FOR SHARE),
          written AS (INSERT INTO events (term, batch) SELECT leader.term, \(batch) FROM leader RETURNING seq)
          SELECT count(*)::bigint, pg_notify('arbor_events', coalesce(max(seq), 0)::text) IS NULL FROM written
          """, logger: logger
        ).collect()
        guard let (written, _) = try rows.first?.decode((Int64, Bool).self), written == 1 else {
          throw superseded(term: try await currentTerm(on: connection))
        }
        if prune {
          try await connection.query(
            PostgresQuery(unsafeSQL: "DELETE FROM events WHERE created_at < now() - interval '\(Self.eventLifetime)'"), logger: logger)
        }
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// For a standby: the newest batch's number now (0 for none), where its reading starts.
  public func newestEventBatch() async throws(StoreError) -> Int64 {
    do {
      return try await reader.answering(within: Self.readTimeout) { [self] connection in
        let rows = try await connection.query("SELECT coalesce(max(seq), 0)::bigint FROM events", logger: logger).collect()
        return try rows.first?.decode(Int64.self) ?? 0
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// For a standby: the batches after `seq`, oldest first, at most `limit`.
  public func eventBatches(after seq: Int64, limit: Int = 100) async throws(StoreError) -> [(seq: Int64, batch: String)] {
    do {
      return try await reader.answering(within: Self.readTimeout) { [self] connection in
        var batches: [(seq: Int64, batch: String)] = []
        for try await (number, batch) in try await connection.query(
          "SELECT seq, batch FROM events WHERE seq > \(seq) ORDER BY seq LIMIT \(limit)", logger: logger
        ).decode((Int64, String).self) {
          batches.append((number, batch))
        }
        return batches
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// Wakes a standby's reader of events: at each batch the leader writes, and every
  /// `interval` besides.
  public func eventWakeups(every interval: Duration) -> StoreWakeups {
    StoreWakeups.listening(address: address, channel: Self.eventChannel, every: interval, logger: logger)
  }
}
