import ArborLocking
import ArborStorage
import Logging
import PostgresNIO

/// One connection to the server, made again when it was lost; `prepare` runs on each new
/// connection before it is used.
final class PostgresSession: Sendable {
  let address: PostgresAddress
  let logger: Logger
  private let connection = LockedState<PostgresConnection?>(nil)
  /// Taken by each transaction on this session (``inTransaction(logger:within:_:)``):
  /// PostgreSQL runs a connection's statements in the order they arrive, so a statement
  /// another task sent while a transaction is open would run inside it (and
  /// `SET TRANSACTION` must come first).
  private let turns = AsyncTurns()
  /// Taken while a connection is made.
  private let connecting = AsyncTurns()
  private let nextID = LockedState(1)

  init(address: PostgresAddress, logger: Logger) {
    self.address = address
    self.logger = logger
  }

  /// The open connection, or a new one (then `prepare` runs on it first; if it throws, the
  /// connection is closed and the error thrown).
  ///
  /// One connection is made at a time: callers that find none open while another is being
  /// made get that one. (Two made at once would each run `prepare`: for the leader's
  /// session, the second would find the lock taken by the first and take it for another
  /// daemon's.)
  func connection(prepare: (PostgresConnection) async throws -> Void = { _ in }) async throws -> PostgresConnection {
    if let open = openConnection() { return open }
    return try await connecting.take {
      if let open = openConnection() { return open }
      return try await connect(prepare: prepare)
    }
  }

  private func openConnection() -> PostgresConnection? {
    guard let open = connection.withLock({ $0 }), !open.isClosed else { return nil }
    return open
  }

  private func connect(prepare: (PostgresConnection) async throws -> Void) async throws -> PostgresConnection {
    let id = nextID.withLock { id -> Int in
      defer { id += 1 }
      return id
    }
    let made = try await Self.connection(to: address, id: id, logger: logger)
    // Preparing runs queries on the new connection: one that does not answer is closed,
    // which ends them.
    let timer = Task {
      try await Task.sleep(for: Self.connectTimeout)
      try? await made.close()
    }
    defer { timer.cancel() }
    do {
      try await prepare(made)
    } catch {
      try? await made.close()
      throw error
    }
    let replaced = connection.withLock { current -> PostgresConnection? in
      defer { current = made }
      return current
    }
    if let replaced, !replaced.isClosed { try? await replaced.close() }
    return made
  }

  /// Runs `body` in a transaction on this session's connection, alone: no statement of
  /// another caller of this method runs inside it. (Callers that send single statements
  /// on a session that runs transactions would land inside one: give those a session of
  /// their own.) With `timeout`, the transaction must end within it (as
  /// ``answering(within:_:)``).
  func inTransaction<T: Sendable>(
    logger: Logger, within timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
  ) async throws -> T {
    try await turns.take {
      let connection = try await self.connection()
      guard let timeout else { return try await connection.withTransaction(logger: logger) { try await body($0) } }
      return try await Self.answer(connection, within: timeout, location: address.description) { connection in
        try await connection.withTransaction(logger: logger) { try await body($0) }
      }
    }
  }

  /// Runs `body` on this session's connection, which must answer within `timeout`: a
  /// connection whose network was cut says nothing, so one that does not answer is closed
  /// (what waits on it fails at once, and the next call makes a new one) and
  /// ``StoreError/Kind/unreachable`` thrown.
  func answering<T: Sendable>(
    within timeout: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
  ) async throws -> T {
    try await Self.answer(try await connection(), within: timeout, location: address.description, body)
  }

  /// Runs `body` on `connection` (one of this session's, already made), which must answer
  /// within `timeout`, as ``answering(within:_:)``. The caller is answered at the deadline
  /// even if `body` has not ended (``AnswerDeadline``).
  static func answer<T: Sendable>(
    _ connection: PostgresConnection, within timeout: Duration, location: String,
    _ body: @escaping @Sendable (PostgresConnection) async throws -> T
  ) async throws -> T {
    try await AnswerDeadline.run(within: timeout) {
      try await body(connection)
    } onTimeout: {
      // Closed at once (on its event loop): the session's next call finds it closed and
      // makes a new one.
      connection.close().whenComplete { _ in _ = connection }
      return StoreError(
        .unreachable, path: location, "the server did not answer within \(timeout): the connection was closed, and is made again at the next call")
    }
  }

  /// How long making a connection (its TCP connection, the server's start-up and
  /// authentication, and `prepare`) may take.
  static let connectTimeout = Duration.seconds(10)

  /// A new connection, within ``connectTimeout``: the attempt runs in a task of its own,
  /// so that one the server never answers (it was shutting down, a network cut) fails the
  /// caller in time rather than hold it; a connection that comes after all is closed.
  private static func connection(to address: PostgresAddress, id: Int, logger: Logger) async throws -> PostgresConnection {
    let attempt = Task { try await PostgresConnection.connect(configuration: address.configuration, id: id, logger: logger) }
    let settled = LockedState(false)
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<PostgresConnection, any Error>) in
      @Sendable func settle(_ result: Result<PostgresConnection, any Error>) -> Bool {
        let first = settled.withLock { settled -> Bool in
          defer { settled = true }
          return !settled
        }
        if first { continuation.resume(with: result) }
        return first
      }
      let timer = Task {
        try await Task.sleep(for: connectTimeout)
        _ = settle(
          .failure(
            StoreError(
              .unreachable, path: address.description,
              "the server did not accept a connection within \(connectTimeout): is it running and reachable?")))
      }
      Task {
        let result = await attempt.result
        // The timer is not left sleeping once the attempt has settled.
        if settle(result) { timer.cancel() } else if case .success(let late) = result { try? await late.close() }
      }
    }
  }

  /// Whether a connection is open now.
  var isOpen: Bool { connection.withLock { $0.map { !$0.isClosed } ?? false } }

  /// A session dropped without ``close()`` still ends its connection: the close keeps the
  /// connection until it is done.
  deinit {
    if let open = connection.withLock({ $0 }), !open.isClosed {
      open.close().whenComplete { _ in _ = open }
    }
  }

  /// Closes the connection (its session's advisory locks go with it).
  func close() async {
    guard let open = connection.withLock({ current -> PostgresConnection? in
      defer { current = nil }
      return current
    }) else { return }
    try? await open.close()
  }
}
