import ArborJSON
import ArborRPC

/// The events models send, as an `AsyncSequence` of ``ReceivedEvent``s: those sent by a
/// model at or under a path, of the given types.
///
/// Events are not journalled: when the connection is lost, the watch subscribes again per
/// its ``ReconnectPolicy``, and events sent while it was away are not delivered (a
/// ``WatchConnectionEvent/lost(_:)`` tells when that can have happened). The daemon closes
/// an event watch that falls too far behind; the sequence then throws
/// ``ArborClientError/watchClosed(subscription:reason:)``.
///
/// ```swift
/// for try await event in client.events("/counters", types: ["CounterRowModel.Event"]) {
///   print(event.sourcePath, event.event)
/// }
/// ```
public struct EventWatch: AsyncSequence, Sendable {
  public typealias Element = ReceivedEvent

  let client: ArborClient
  let path: String
  let types: [String]?
  let onConnection: (@Sendable (WatchConnectionEvent) -> Void)?

  public func makeAsyncIterator() -> AsyncThrowingStream<ReceivedEvent, any Error>.Iterator {
    let (stream, continuation) = AsyncThrowingStream.makeStream(of: ReceivedEvent.self, bufferingPolicy: .unbounded)
    let (client, onConnection) = (self.client, self.onConnection)
    let request = EventsWatch.Params(path: path, types: types)
    let task = Task {
      do {
        try await WatchLoop(client: client, onConnection: onConnection).run { connection throws(ArborClientError) in
          let subscription = Int64(try await connection.call(EventsWatch.self, request).subscription)
          let revision = try await connection.call(DaemonStatus.self).revision
          onConnection?(.subscribed(revision: revision))
          for await notification in connection.notifications {
            guard let params = notification.params, params["subscription"]?.intValue == subscription else { continue }
            switch notification.method {
            case ArborNotification.eventsEmitted.rawValue:
              guard let event = ReceivedEvent(params: params) else { throw .malformedReply("events.emitted with params \(params.jsonString)") }
              continuation.yield(event)
            case ArborNotification.watchClosed.rawValue:
              throw .watchClosed(subscription: subscription, reason: params["reason"]?.stringValue ?? "no reason given")
            default: continue
            }
          }
        }
        continuation.finish()
      } catch {
        continuation.finish(throwing: error)
      }
    }
    continuation.onTermination = { _ in task.cancel() }
    return stream.makeAsyncIterator()
  }
}
