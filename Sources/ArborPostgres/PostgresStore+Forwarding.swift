import ArborLocking
import ArborRPC
import ArborStorage
import Foundation
import Logging
import PostgresNIO

/// Intents forwarded from standbys to the leader through the database: a standby queues
/// the intent's request in `intent_queue` and announces it (`NOTIFY arbor_intents`); the
/// leader claims it in its term, runs it as if it had been sent to its own socket, writes
/// the reply into the row and announces it (`NOTIFY arbor_replies`). A row a leader
/// claimed and did not answer before it died is answered by the next leader with an
/// error that says the outcome is not known, never run twice. What a daemon sees of it is
/// ``StoreIntentForwarding``.
extension PostgresStore: StoreIntentForwarding {
  static let intentChannel = "arbor_intents"
  static let replyChannel = "arbor_replies"

  /// One forwarded intent, as the leader gets it (``ArborStorage/ForwardedIntent``).
  public typealias ForwardedIntent = ArborStorage.ForwardedIntent

  /// For a standby: queues an intent's request (its `params` as JSON text) for the leader
  /// and waits for the reply (a JSON-RPC response's JSON text), at most `timeout`.
  ///
  /// ```swift
  /// let reply = try await store.forward(request: #"{"target":"/counter","intent":"incrementTapped"}"#, timeout: .seconds(30))
  /// ```
  public func forward(request: String, timeout: Duration) async throws(StoreError) -> String {
    let id = try await queueForwarded(request: request)
    return try await forwardedReply(of: id, timeout: timeout)
  }

  /// For a standby: queues an intent's request (its `params` as JSON text) for the leader
  /// and returns its place in the queue. When this throws, the intent was not queued (the
  /// leader runs nothing), unless the connection was lost between the insert's commit
  /// and its answer.
  ///
  /// ```swift
  /// let id = try await store.queueForwarded(request: #"{"intent":"incrementTapped"}"#)
  /// ```
  public func queueForwarded(request: String) async throws(StoreError) -> Int64 {
    do {
      let sender = holder
      return try await reader.answering(within: Self.readTimeout) { [self] connection in
        let rows = try await connection.query(
          "INSERT INTO intent_queue (sender, request) VALUES (\(sender), \(request)) RETURNING id", logger: logger
        ).collect()
        guard let id = try rows.first?.decode(Int64.self) else { throw StoreError(.io, path: location, "the intent could not be queued") }
        try await connection.query("SELECT pg_notify(\(Self.intentChannel), \(String(id)))", logger: logger)
        return id
      }
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// For a standby: waits for the leader's reply to queued intent `id` (a JSON-RPC
  /// response's JSON text), at most `timeout`; the row is read again while the server
  /// does not answer. The error after `timeout` says the leader may still run it.
  ///
  /// ```swift
  /// let reply = try await store.forwardedReply(of: id, timeout: .seconds(30))
  /// ```
  public func forwardedReply(of id: Int64, timeout: Duration) async throws(StoreError) -> String {
    do {
      return try await replies.wait(for: id, timeout: timeout, store: self)
    } catch {
      throw Self.classify(error, location: location)
    }
  }

  /// The reply of queued intent `id`, when it has one.
  func reply(of id: Int64) async throws -> String? {
    try await reader.answering(within: Self.readTimeout) { [self] connection in
      let rows = try await connection.query("SELECT reply FROM intent_queue WHERE id = \(id)", logger: logger).collect()
      return try rows.first?.decode(String?.self)
    }
  }

  /// For the leader: runs the intents standbys forward, in the order they were queued,
  /// with `run` (which returns the JSON-RPC response's JSON text), until the task is
  /// cancelled. First answers the rows an earlier leader claimed and did not answer.
  public func serveForwardedIntents(_ run: @escaping @Sendable (ForwardedIntent) async -> String) async {
    let wakeups = StoreWakeups.listening(address: address, channel: Self.intentChannel, every: .milliseconds(500), logger: logger)
    defer { wakeups.cancel() }
    var lastCleanup = ContinuousClock.now - .seconds(60)
    for await _ in wakeups.stream {
      if Task.isCancelled { return }
      do {
        let term = self.term
        guard term > 0 else { return }
        // Each statement must be answered in time: a connection that says nothing would
        // otherwise stop the leader serving standbys, silently.
        if ContinuousClock.now - lastCleanup > .seconds(30) {
          lastCleanup = .now
          let unknown = Self.unknownOutcomeReply
          try await services.answering(within: Self.readTimeout) { [logger] connection in
            try await connection.query(
              "UPDATE intent_queue SET reply = \(unknown) WHERE reply IS NULL AND claimed_term < \(term)", logger: logger)
            try await connection.query(
              "DELETE FROM intent_queue WHERE reply IS NOT NULL AND created_at < now() - interval '5 minutes'", logger: logger)
          }
        }
        while true {
          let claimed = try await services.answering(within: Self.readTimeout) { [logger] connection in
            var claimed: [ForwardedIntent] = []
            for try await (id, sender, request) in try await connection.query(
              """
              UPDATE intent_queue SET claimed_term = \(term) WHERE id IN (
                SELECT id FROM intent_queue WHERE claimed_term IS NULL ORDER BY id LIMIT 100 FOR UPDATE SKIP LOCKED)
              RETURNING id, sender, request
              """, logger: logger
            ).decode((Int64, String, String).self) {
              claimed.append(ForwardedIntent(id: id, sender: sender, request: request))
            }
            return claimed
          }
          guard !claimed.isEmpty else { break }
          for intent in claimed.sorted(by: { $0.id < $1.id }) {
            let reply = await run(intent)
            try await answer(intent.id, with: reply, term: term)
          }
        }
      } catch {
        logger.warning("forwarded intents could not be served from \(location): \(error); trying again")
      }
    }
  }

  /// Writes the reply of forwarded intent `id` and announces it. The intent has run: a lost
  /// connection does not lose its reply, which is written again on a new one for up to
  /// 10 s (unless another daemon leads meanwhile: then the row is its to answer).
  private func answer(_ id: Int64, with reply: String, term: Int64) async throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while true {
      do {
        try await services.answering(within: Self.readTimeout) { [self] connection in
          try await connection.query(
            "UPDATE intent_queue SET reply = \(reply) WHERE id = \(id) AND claimed_term = \(term)", logger: logger)
          try await connection.query("SELECT pg_notify(\(Self.replyChannel), \(String(id)))", logger: logger)
        }
        return
      } catch {
        guard ContinuousClock.now < deadline, self.term == term, !Task.isCancelled else { throw error }
        try await Task.sleep(for: .milliseconds(200))
      }
    }
  }

  /// The reply a new leader gives an intent the old one claimed and did not answer.
  /// `org.arbor.NotDurable` with its code (1012), as every other reply of that name: a
  /// client that tests the code or the name reads the same error.
  static let unknownOutcomeReply = String(
    decoding: RPCResponse(
      id: .null,
      error: RPCError(
        .notDurable,
        message:
          "the leader that was running this forwarded intent stopped before it answered: the intent may or may not have run. Read the state (or history.changes) before calling it again")
    ).jsonLine.dropLast(), as: UTF8.self)
}

/// The standby's waits for forwarded intents' replies: one `LISTEN arbor_replies` session
/// for all of them, and a read of each waiting row every 250 ms in case an announcement
/// was missed.
final class ForwardedReplies: Sendable {
  private struct State {
    /// Who waits for which reply now.
    var waiting: [Int64: CheckedContinuation<Void, Never>] = [:]
    /// Replies announced (or timers run out) while their waiter was reading the row.
    var woken: Set<Int64> = []
    /// The replies waited for.
    var active: Set<Int64> = []
    var listener: Task<Void, Never>?
  }

  private let state = LockedState(State())

  /// The reply of `id`, or a timeout error.
  func wait(for id: Int64, timeout: Duration, store: PostgresStore) async throws -> String {
    startListening(store)
    state.withLock { _ = $0.active.insert(id) }
    defer {
      state.withLock { state in
        state.active.remove(id)
        state.woken.remove(id)
      }
    }
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
      // A read that fails (the server restarting) is tried again until the deadline.
      if let reply = try? await store.reply(of: id) { return reply }
      // Woken by the announcement, or after 250 ms.
      let timer = Task { [self] in
        try? await Task.sleep(for: .milliseconds(250))
        wake(id)
      }
      await withCheckedContinuation { continuation in
        let now = state.withLock { state -> Bool in
          if state.woken.remove(id) != nil { return true }
          state.waiting[id] = continuation
          return false
        }
        if now { continuation.resume() }
      }
      timer.cancel()
    }
    throw StoreError(
      .io, path: store.location,
      "the leader did not answer the forwarded intent within \(timeout): it may run it later; read the state before calling it again")
  }

  /// Resumes whoever waits for `id`, or tells its next wait not to.
  func wake(_ id: Int64) {
    let continuation = state.withLock { state -> CheckedContinuation<Void, Never>? in
      if let waiting = state.waiting.removeValue(forKey: id) { return waiting }
      if state.active.contains(id) { state.woken.insert(id) }
      return nil
    }
    continuation?.resume()
  }

  private func startListening(_ store: PostgresStore) {
    state.withLock { state in
      guard state.listener == nil else { return }
      state.listener = Task { [weak self] in
        let session = PostgresSession(address: store.address, logger: store.logger)
        defer { Task { await session.close() } }
        while !Task.isCancelled {
          do {
            let connection = try await session.connection()
            try await connection.listen(on: PostgresStore.replyChannel) { notifications in
              for try await notification in notifications {
                if let id = Int64(notification.payload) { self?.wake(id) }
              }
            }
          } catch {
            try? await Task.sleep(for: .milliseconds(200))
          }
        }
      }
    }
  }

  /// Stops listening.
  func stop() {
    let listener = state.withLock { state -> Task<Void, Never>? in
      defer { state.listener = nil }
      return state.listener
    }
    listener?.cancel()
  }
}
