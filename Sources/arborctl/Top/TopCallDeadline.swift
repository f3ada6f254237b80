import ArborClient
import ArborJSON
import ArborLocking
import ArborRPC

/// `arborctl top`'s calls, each within `--timeout`: a daemon that stops answering (frozen
/// by SIGSTOP, or wedged) ends `top` with exit 4 instead of leaving its last figures on the
/// screen for ever, and one that goes away (killed, stopped) ends it with exit 3.
///
/// A call's reply cannot be cancelled, only the connection it waits on: past the timeout
/// the connection is closed, which ends the call, and the failure is the timeout.
///
/// ```swift
/// let deadline = TopCallDeadline(connection: connection, path: "/run/arbor/counterfactd.sock", seconds: 10)
/// let metrics = try await deadline.call(.metrics)   // or CommandFailure(.timeout) after 10 s
/// ```
struct TopCallDeadline: Sendable {
  let connection: ArborConnection
  /// The socket (or sockets) named in the messages.
  let path: String
  let seconds: Double

  /// Calls `method`; throws ``CommandFailure`` with `.timeout` past `seconds`, with
  /// `.cannotConnect` when the connection is lost, and the daemon's error as it is.
  func call(_ method: ArborMethod) async throws(CommandFailure) -> JSONValue {
    let timedOut = LockedState(false)
    let (connection, seconds) = (self.connection, self.seconds)
    do {
      return try await withThrowingTaskGroup(of: JSONValue?.self) { group in
        group.addTask { try await connection.call(method) }
        group.addTask {
          try await Task.sleep(for: .milliseconds(Int64(seconds * 1000)))
          timedOut.withLock { $0 = true }
          connection.close()
          return nil
        }
        defer { group.cancelAll() }
        while let result = try await group.next() {
          if let result { return result }
        }
        throw ArborClientError.connectionClosed
      }
    } catch ArborClientError.connectionClosed {
      if timedOut.withLock({ $0 }) { throw timeout(method) }
      throw CommandFailure(
        .cannotConnect, "the daemon at \(path) closed the connection (it stopped or was killed): top ends")
    } catch let error as ArborClientError {
      throw CommandFailure(error)
    } catch {
      // Only cancellation is left (Ctrl-C ends the process before it matters).
      throw timeout(method)
    }
  }

  private func timeout(_ method: ArborMethod) -> CommandFailure {
    CommandFailure(
      .timeout,
      "no answer to \(method.rawValue) from \(path) within \(seconds) s (--timeout): the daemon is stopped (SIGSTOP?) or too busy to answer; top ends")
  }
}
