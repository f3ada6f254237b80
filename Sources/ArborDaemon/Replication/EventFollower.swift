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
struct EventFollower: Service {
  let store: any StoreEventRelay
  let hub: WatchHub
  let logger: Logger

  func run() async throws {
    await untilShutdown { await follow() }
  }

  private func follow() async {
    var seen: Int64?
    let wakeups = store.eventWakeups(every: .seconds(1))
    defer { wakeups.cancel() }
    for await _ in wakeups.stream {
      if Task.isCancelled { return }
      do {
        guard let after = seen else {
          seen = try await store.newestEventBatch()
          continue
        }
        var cursor = after
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
