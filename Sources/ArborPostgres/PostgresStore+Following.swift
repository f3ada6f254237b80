import ArborStore
import Logging
import PostgresNIO

extension PostgresStore {
  /// For a standby: calls `announced` with the newest revision of each journal transaction
  /// the leader commits (PostgreSQL's `LISTEN`), until the task is cancelled. When the
  /// connection is lost it is made again, and `announced` is called with nil: what was
  /// announced meanwhile is missed, so the caller reads the journal again.
  ///
  /// ```swift
  /// await store.followAnnouncements { revision in await follower.catchUp() }
  /// ```
  public func followAnnouncements(_ announced: @escaping @Sendable (UInt64?) async -> Void) async {
    let session = PostgresSession(address: address, logger: logger)
    defer { Task { await session.close() } }
    while !Task.isCancelled {
      do {
        let connection = try await session.connection()
        try await connection.listen(on: Self.journalChannel) { notifications in
          // Anything committed before the listen began is read by the caller now.
          await announced(nil)
          for try await notification in notifications {
            await announced(UInt64(notification.payload))
          }
        }
      } catch {
        if Task.isCancelled { return }
        logger.debug("the standby's listen on \(location) ended (\(error)); listening again")
      }
      await announced(nil)
      try? await Task.sleep(for: .milliseconds(200))
    }
  }
}
