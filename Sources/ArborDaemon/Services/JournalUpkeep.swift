import ServiceLifecycle

/// The journal's upkeep as a service: snapshots every `--snapshot-every` revisions or
/// `--snapshot-interval` seconds, and the retries that lift a refusal of writes once the
/// disk takes them again. It runs until graceful shutdown reaches it, after the socket
/// server has saved the final snapshot.
struct JournalUpkeep: Service, CustomStringConvertible {
  var description: String { "JournalUpkeep" }
  let journal: DaemonJournal

  func run() async {
    await cancelWhenGracefulShutdown { [journal] in
      await withDiscardingTaskGroup { group in
        group.addTask { await journal.compactPeriodically() }
        group.addTask { await journal.retryWhileRefused() }
      }
    }
  }
}
