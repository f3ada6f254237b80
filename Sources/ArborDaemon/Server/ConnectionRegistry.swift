import ArborLocking
import NIOCore

/// The open connections, so that a stopping daemon can flush and close them.
final class ConnectionRegistry: Sendable {
  private let entries = LockedState<[Int: (outbox: Outbox, channel: any Channel, bridged: Bool)]>([:])

  /// `bridged`: the connection bridges an inspector WebSocket (``WebSocketBridge``), a socket
  /// pair whose other end is this process's, which a hand-over does not pass on.
  func add(id: Int, outbox: Outbox, channel: any Channel, bridged: Bool) {
    entries.withLock { $0[id] = (outbox, channel, bridged) }
  }
  /// Woken when the last connection goes.
  private let emptied = ZeroWait()

  func remove(id: Int) {
    let empty = entries.withLock { entries -> Bool in
      entries.removeValue(forKey: id)
      return entries.isEmpty
    }
    if empty { emptied.signal() }
  }

  /// Waits until every connection has gone (true), or `deadline` passes (false).
  func waitUntilEmpty(until deadline: ContinuousClock.Instant) async -> Bool {
    await emptied.wait(until: deadline) { self.isEmpty }
  }

  /// Lets every connection write what it has queued, then close.
  func finishAll() { for entry in entries.withLock({ Array($0.values) }) { entry.outbox.finish() } }

  /// Closes the connections still open.
  func closeAll() { for entry in entries.withLock({ Array($0.values) }) { entry.channel.close(promise: nil) } }

  var isEmpty: Bool { entries.withLock { $0.isEmpty } }

  /// The open connections, by the daemon's number of each.
  var all: [(id: Int, outbox: Outbox, channel: any Channel, bridged: Bool)] {
    entries.withLock { entries in
      entries.map { (id: $0.key, outbox: $0.value.outbox, channel: $0.value.channel, bridged: $0.value.bridged) }
    }
  }
}
