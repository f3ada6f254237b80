import ArborLocking
import Logging
import PostgresNIO

/// One connection to the server, made again when it was lost; `prepare` runs on each new
/// connection before it is used.
final class PostgresSession: Sendable {
  let address: PostgresAddress
  let logger: Logger
  private let connection = LockedState<PostgresConnection?>(nil)
  private let nextID = LockedState(1)

  init(address: PostgresAddress, logger: Logger) {
    self.address = address
    self.logger = logger
  }

  /// The open connection, or a new one (then `prepare` runs on it first; if it throws, the
  /// connection is closed and the error thrown).
  func connection(prepare: (PostgresConnection) async throws -> Void = { _ in }) async throws -> PostgresConnection {
    if let open = connection.withLock({ $0 }), !open.isClosed { return open }
    let id = nextID.withLock { id -> Int in
      defer { id += 1 }
      return id
    }
    let made = try await PostgresConnection.connect(configuration: address.configuration, id: id, logger: logger)
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
