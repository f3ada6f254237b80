import Arbor
import ArborJSON
import ArborStorage
import Foundation
import Logging
import NIOPosix
import ServiceLifecycle

/// A standby's reading of the leader's journal: each revision the leader commits is
/// applied to the standby's tree (``ReplicaHost``) and its watch hub, in order, at the
/// leader's revision numbers, so that its watchers see what the leader's see and `since`
/// means the same on every daemon.
///
/// It reads when the store announces a transaction of the leader's
/// (``StoreLeadership/journalWakeups(every:)``; PostgreSQL's `LISTEN`), and once a second
/// besides. A standby that fell behind the journal's window takes the whole state
/// again (its watchers get a resync).
struct JournalFollower<Root: Model>: Service {
  let store: any StoreLeadership
  let replica: ReplicaHost<Root>
  let hub: WatchHub
  let journal: DaemonJournal
  let logger: Logger

  func run() async throws {
    await untilShutdown { await follow() }
  }

  private func follow() async {
    let wakeups = store.journalWakeups(every: .seconds(1))
    defer { wakeups.cancel() }
    var named = ContinuousClock.now - .seconds(1)
    for await _ in wakeups.stream {
      if Task.isCancelled { return }
      await catchUp()
      // Who leads, for refusals and status: read once a second, not at each transaction.
      if ContinuousClock.now - named >= .seconds(1) {
        named = .now
        if let (holder, term) = await store.leaderHolder() { journal.leaderNamed(holder: holder, term: term) }
      }
    }
  }

  /// Applies every journalled revision after the replica's.
  func catchUp() async {
    do {
      while !Task.isCancelled {
        let entries = try await store.journal(since: replica.revision, limit: 1_000)
        guard !entries.isEmpty else { break }
        for entry in entries {
          guard replica.apply(entry) else {
            try await resync(because: "the journal goes on at revision \(entry.revision), after the standby's \(replica.revision)")
            return
          }
          _ = hub.apply(revision: entry.revision, operations: entry.patch.operations)
          journal.writer.advance(to: entry.revision)
        }
      }
    } catch {
      logger.warning("the standby could not read the journal of \(store.location): \(error); it tries again")
    }
  }

  /// Takes the store's whole newest state: the standby fell behind what the journal keeps.
  private func resync(because reason: String) async throws {
    let store = self.store
    let recovery = try await StoreCall.run { try store.recover() }
    guard let record = recovery.record else { return }
    logger.notice("the standby takes the whole state of revision \(record.revision) again: \(reason)")
    replica.reset(to: record)
    hub.reset(document: record.state, revision: record.revision)
    journal.writer.advance(to: record.revision)
  }
}
