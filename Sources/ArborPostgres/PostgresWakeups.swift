import ArborStorage
import Foundation
import Logging
import PostgresNIO

/// The wake-ups a PostgreSQL store gives a loop that reads it when something changed
/// (``StoreWakeups``): the name they had before the abstraction had a module of its own.
public typealias PostgresWakeups = StoreWakeups

extension StoreWakeups {
  /// One wake-up for each `NOTIFY` on `channel` (PostgreSQL's `LISTEN`, on a connection of
  /// its own, made again when it is lost), one at once after each listen begins (what came
  /// before it is read then), and one every `interval` besides; they are coalesced while
  /// the loop is busy.
  ///
  /// ```swift
  /// let wakeups = StoreWakeups.listening(address: address, channel: "arbor_journal", every: .seconds(1), logger: logger)
  /// defer { wakeups.cancel() }
  /// for await _ in wakeups.stream { await readTheJournal() }
  /// ```
  static func listening(address: PostgresAddress, channel: String, every interval: Duration, logger: Logger) -> StoreWakeups {
    let (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let listening = Task {
      if let delay = testListenDelay { try? await Task.sleep(for: delay) }
      let session = PostgresSession(address: address, logger: logger)
      while !Task.isCancelled {
        do {
          let connection = try await session.connection()
          try await connection.listen(on: channel) { notifications in
            wake.yield()
            for try await _ in notifications { wake.yield() }
          }
        } catch {
          if Task.isCancelled { break }
          logger.debug("the listen on \(channel) at \(address) ended (\(error)); listening again")
        }
        wake.yield()
        try? await Task.sleep(for: .milliseconds(200))
      }
      await session.close()
    }
    let ticking = Task {
      if let delay = testListenDelay { try? await Task.sleep(for: delay) }
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        wake.yield()
      }
    }
    let tasks = [listening, ticking]
    wake.onTermination = { _ in for task in tasks { task.cancel() } }
    return StoreWakeups(stream: stream) {
      for task in tasks { task.cancel() }
      wake.finish()
    }
  }
}

/// For the tests of wake-ups that come late (a loaded machine, a server slow to accept a
/// listen): with `ARBOR_TEST_LISTEN_DELAY_MS=N` in the environment, the listen and the
/// timer of each ``StoreWakeups/listening(address:channel:every:logger:)`` start N ms late.
/// Unset, it costs one look at a constant each.
private let testListenDelay: Duration? = ProcessInfo.processInfo.environment["ARBOR_TEST_LISTEN_DELAY_MS"]
  .flatMap(Int.init).map { .milliseconds($0) }

extension PostgresStore {
  /// Wakes a standby's reader of the journal: at each journal transaction the leader
  /// commits, and every `interval` besides.
  public func journalWakeups(every interval: Duration) -> StoreWakeups {
    StoreWakeups.listening(address: address, channel: Self.journalChannel, every: interval, logger: logger)
  }
}
