import Arbor
import ArborJSON
import Logging
import Synchronization

/// Carries the tree's change sets and events into the ``WatchHub``, and starts over from
/// the tree's state when the tree is replaced, when the hub falls too far behind, or when
/// a revision's patch was not exact.
final class ChangePump: Sendable {
  let host: any TreeHost
  let hub: WatchHub
  let logger: Logger
  private let running = Mutex<[Task<Void, Never>]>([])

  init(host: any TreeHost, hub: WatchHub, logger: Logger) {
    self.host = host
    self.hub = hub
    self.logger = logger
  }

  /// Runs until cancelled.
  func run() async {
    await withDiscardingTaskGroup { group in
      group.addTask { await self.loop { self.pumpChanges() } }
      group.addTask { await self.loop { self.pumpEvents() } }
    }
  }

  /// Drops the current subscriptions and subscribes to the (new) tree.
  func restart() {
    for task in running.withLock({ $0 }) { task.cancel() }
  }

  private func loop(_ makeRound: @escaping @Sendable () -> Task<Void, Never>) async {
    while !Task.isCancelled {
      let round = makeRound()
      running.withLock { $0.append(round) }
      await withTaskCancellationHandler {
        await round.value
      } onCancel: {
        round.cancel()
      }
      running.withLock { $0.removeAll { $0 == round } }
    }
  }

  private func pumpChanges() -> Task<Void, Never> {
    let (_, sets) = host.changeSets(limit: 100_000)
    return Task {
      do {
        // Subscribed first, read second: every revision after the state read arrives.
        let (revision, value) = try host.state()
        hub.reset(document: value, revision: revision)
      } catch {
        logger.error("the state cannot be encoded, watches are stopped until it can: \(error)")
        try? await Task.sleep(for: .seconds(1))
        return
      }
      do {
        for try await changeSet in sets {
          if !changeSet.isExact {
            logger.error("revision \(changeSet.revision) holds a value that could not be encoded; watchers get a resync")
            return
          }
          if !hub.apply(revision: changeSet.revision, operations: changeSet.patch.operations) { return }
        }
      } catch {
        logger.warning("the watch hub fell behind the tree (\(error)); watchers get a resync")
      }
    }
  }

  private func pumpEvents() -> Task<Void, Never> {
    let (_, events) = host.events(limit: 100_000)
    return Task {
      do {
        for try await event in events { hub.publish(event) }
      } catch {
        logger.warning("event delivery fell behind the tree (\(error)); events were lost")
      }
    }
  }
}
