import ArborJSON
import ArborLocking
import ArborRPC
import ArborStorage
import Logging
import ServiceLifecycle

/// The leader's relay of its models' events to the standbys through its store
/// (``StoreEventRelay/publishEvents(batch:prune:)``), so that an `events.watch` on a standby
/// sees them too. Off the request path: the events are gathered as the tree sends them and
/// written in batches, one statement each, whatever came while the previous one was
/// written. A daemon whose models send no events writes nothing.
struct EventRelay: Service {
  let store: any StoreEventRelay
  let host: any TreeHost
  let logger: Logger
  /// Events gathered and not yet written, at most this many (older ones are dropped, with
  /// a warning: a standby's watchers miss them, the leader's do not).
  static let pendingLimit = 100_000

  func run() async throws {
    guard let (_, events) = host.events(limit: Self.pendingLimit) else { return }
    let pending = LockedState<[JSONValue]>([])
    let (ready, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    let gathering = Task {
      do {
        for try await event in events {
          guard let params = WatchHub.params(of: event) else { continue }
          let dropped = pending.withLock { pending -> Bool in
            pending.append(params.jsonValue)
            guard pending.count > Self.pendingLimit else { return false }
            pending.removeFirst(pending.count - Self.pendingLimit)
            return true
          }
          if dropped { logger.warning("events for the standbys fell behind what \(store.location) takes; the oldest were dropped") }
          wake.yield()
        }
      } catch {
        logger.warning("the relay of events to the standbys fell behind the tree (\(error)); events were lost")
      }
      wake.finish()
    }
    defer { gathering.cancel() }
    var lastPrune = ContinuousClock.now
    for await _ in ready.cancelOnGracefulShutdown() {
      let batch = pending.withLock { pending in
        defer { pending = [] }
        return pending
      }
      guard !batch.isEmpty else { continue }
      let prune = ContinuousClock.now - lastPrune > .seconds(30)
      if prune { lastPrune = .now }
      do {
        try await store.publishEvents(batch: String(decoding: JSONValue.array(batch).jsonData(), as: UTF8.self), prune: prune)
      } catch {
        // A superseded leader steps down (LeadershipLoss); a lost link is retried with
        // the next batch.
        logger.warning("\(batch.count) events could not be relayed to the standbys: \(error)")
        if error.kind == .superseded { return }
      }
    }
  }
}
