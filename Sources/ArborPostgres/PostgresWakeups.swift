import ArborLocking
import Logging
import PostgresNIO

/// The wake-ups of a loop that reads the database when something changed: one for each
/// `NOTIFY` on a channel (PostgreSQL's `LISTEN`, on a connection of its own, made again
/// when it is lost), one at once after each listen begins (what came before it is read
/// then), and one every `interval` besides; they are coalesced while the loop is busy.
///
/// ```swift
/// let wakeups = store.journalWakeups(every: .seconds(1))
/// defer { wakeups.cancel() }
/// for await _ in wakeups.stream { await readTheJournal() }
/// ```
public final class PostgresWakeups: Sendable {
  public let stream: AsyncStream<Void>
  private let tasks: LockedState<[Task<Void, Never>]>

  init(address: PostgresAddress, channel: String, every interval: Duration, logger: Logger) {
    let (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    self.stream = stream
    let listening = Task {
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
      while !Task.isCancelled {
        try? await Task.sleep(for: interval)
        wake.yield()
      }
    }
    tasks = LockedState([listening, ticking])
    wake.onTermination = { [tasks] _ in for task in tasks.withLock({ $0 }) { task.cancel() } }
  }

  /// Stops listening; the stream ends.
  public func cancel() {
    for task in tasks.withLock({ $0 }) { task.cancel() }
  }
}

extension PostgresStore {
  /// Wakes a standby's reader of the journal: at each journal transaction the leader
  /// commits, and every `interval` besides.
  public func journalWakeups(every interval: Duration) -> PostgresWakeups {
    PostgresWakeups(address: address, channel: Self.journalChannel, every: interval, logger: logger)
  }
}
