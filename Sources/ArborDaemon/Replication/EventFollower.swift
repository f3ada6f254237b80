import ArborJSON
import ArborRPC
import ArborStorage
import Logging
import ServiceLifecycle

/// A standby's reading of the events the leader relays (``EventRelay``) through its store
/// (``StoreEventRelay``): each batch the leader writes after the standby started is
/// delivered to the standby's event watches, in order, as the leader's watchers got it. An
/// event's `revision` is the leader's when it was sent; the standby's state reaches it
/// within its lag.
///
/// Where the reading starts (`after`, the newest batch when the standby started) is read
/// before the standby serves its socket (``startingPoint(_:logger:)``): taken at the first
/// wake-up instead, once the follower's own `LISTEN` connection was up, it skipped the
/// batches a watcher that subscribed meanwhile was owed.
struct EventFollower: Service {
  let store: any StoreEventRelay
  /// The newest batch that was written before the standby served: reading starts after it.
  let after: Int64
  let hub: WatchHub
  let logger: Logger

  /// The newest batch the leader has written, read before the standby serves; a store that
  /// cannot be read now is asked again every 250 ms (with one warning), until the start is
  /// cancelled.
  static func startingPoint(_ store: any StoreEventRelay, logger: Logger) async throws -> Int64 {
    var warned = false
    while true {
      do {
        return try await store.newestEventBatch()
      } catch {
        if !warned { logger.warning("the standby cannot read where the leader's events stand in \(store.location) yet: \(error); trying again") }
        warned = true
      }
      try await Task.sleep(for: .milliseconds(250))
    }
  }

  func run() async throws {
    await untilShutdown { await follow() }
  }

  private func follow() async {
    var seen = after
    let wakeups = store.eventWakeups(every: .seconds(1))
    defer { wakeups.cancel() }
    for await _ in wakeups.stream {
      if Task.isCancelled { return }
      do {
        var cursor = seen
        while !Task.isCancelled {
          let batches = try await store.eventBatches(after: cursor, limit: 100)
          guard let last = batches.last else { break }
          for (_, batch) in batches { deliver(batch) }
          cursor = last.seq
        }
        seen = cursor
      } catch {
        logger.warning("the standby could not read the leader's events from \(store.location): \(error); it tries again")
      }
    }
  }

  private func deliver(_ batch: String) {
    do {
      guard case .array(let events) = try JSONValue(parsing: batch) else { throw RPCError.internalError("not an array") }
      for event in events { hub.publish(try JSONValueDecoder().decode(EventsEmitted.Params.self, from: event)) }
    } catch {
      logger.warning("a batch of the leader's events could not be read: \(error)")
    }
  }
}
