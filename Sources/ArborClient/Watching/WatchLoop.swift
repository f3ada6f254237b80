/// Runs a watch's work on a connection, and on a new one each time the connection is
/// lost, per the client's ``ReconnectPolicy``.
///
/// The first connection must succeed. Errors other than a lost connection end the loop.
struct WatchLoop {
  let client: ArborClient
  let onConnection: (@Sendable (WatchConnectionEvent) -> Void)?

  /// Calls `body` with a connection until it throws something other than a closed
  /// connection, the policy gives up, or the task is cancelled. `body` returning means
  /// the connection closed.
  func run(_ body: (ArborConnection) async throws(ArborClientError) -> Void) async throws(ArborClientError) {
    let policy = client.reconnect
    var connection = try await client.connect()
    while !Task.isCancelled {
      let current = connection
      defer { current.close() }
      let outcome: Result<Void, ArborClientError> = await withTaskCancellationHandler {
        do throws(ArborClientError) {
          try await body(current)
          return .success(())
        } catch {
          return .failure(error)
        }
      } onCancel: {
        current.close()
      }
      switch outcome {
      case .success, .failure(.connectionClosed), .failure(.transportEnded): break  // Lost: connect again below.
      case .failure(let error): throw error
      }
      if Task.isCancelled { return }
      // Why: the daemon closed it, or (through ssh) ssh ended, with its last words.
      let lost = current.endReason ?? .connectionClosed
      onConnection?(.lost(lost))
      guard policy.enabled else { throw lost }
      connection = try await reconnect(policy)
    }
  }

  /// A new connection, tried with growing waits until it opens or the policy gives up.
  private func reconnect(_ policy: ReconnectPolicy) async throws(ArborClientError) -> ArborConnection {
    let clock = ContinuousClock()
    let lostAt = clock.now
    var delay = policy.initialDelay
    while true {
      do {
        try await Task.sleep(for: delay)
      } catch {
        throw .connectionClosed
      }
      do {
        return try await client.connect()
      } catch {
        if let limit = policy.giveUpAfter, clock.now - lostAt >= limit { throw error }
        onConnection?(.lost(error))
      }
      delay = min(delay * 2, policy.maxDelay)
    }
  }
}
