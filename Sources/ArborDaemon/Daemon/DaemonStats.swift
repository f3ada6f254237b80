import ArborLocking
import ArborRPC
import Foundation
import Synchronization

/// Counters for `daemon.status`: clients, intents in flight and the recent intent rate;
/// and the figures of `/metrics` (``ServiceMetrics``).
final class DaemonStats: Sendable {
  struct Snapshot: Sendable {
    var uptime: Double
    var clients: Int
    var intentsInFlight: Int
    var intentsPerSecond: Double
  }

  private struct State {
    var clients = 0
    var intentsInFlight = 0
    /// Intents finished in each of the last seconds, by second.
    var buckets: [Int: Int] = [:]
  }

  /// The figures of `/metrics`; intents are counted there too.
  let metrics = ServiceMetrics()
  private let started = ContinuousClock.now
  /// Woken when the last intent in flight finishes.
  private let drained = ZeroWait()
  private let state = LockedState(State())
  /// The window the intent rate is averaged over, in seconds.
  let window = 10

  func clientConnected() { state.withLock { $0.clients += 1 } }
  func clientDisconnected() { state.withLock { $0.clients -= 1 } }
  func intentStarted() { state.withLock { $0.intentsInFlight += 1 } }

  /// An intent ended; `counted: false` when it did not run after all (it goes on in a
  /// task, and is counted when that ends), so it is not in the rate twice.
  func intentFinished(counted: Bool = true) {
    let second = currentSecond()
    let none = state.withLock { state -> Bool in
      state.intentsInFlight -= 1
      if counted {
        state.buckets[second, default: 0] += 1
        if state.buckets.count > window * 2 {
          state.buckets = state.buckets.filter { $0.key > second - window }
        }
      }
      return state.intentsInFlight == 0
    }
    if counted { metrics.intentRan() }
    if none { drained.signal() }
  }

  var clients: Int { state.withLock { $0.clients } }
  var intentsInFlight: Int { state.withLock { $0.intentsInFlight } }

  /// Waits until no intent runs (true), or `deadline` passes (false): a stopping daemon
  /// lets running intents finish before it saves.
  func waitForIntentsToFinish(until deadline: ContinuousClock.Instant) async -> Bool {
    await drained.wait(until: deadline) { self.intentsInFlight == 0 }
  }

  func snapshot() -> Snapshot {
    let now = currentSecond()
    let uptime = ContinuousClock.now - started
    let seconds = Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18
    return state.withLock { state in
      let recent = state.buckets.filter { $0.key > now - window && $0.key <= now }.values.reduce(0, +)
      let span = min(Double(window), max(seconds, 1))
      return Snapshot(uptime: seconds, clients: state.clients, intentsInFlight: state.intentsInFlight, intentsPerSecond: Double(recent) / span)
    }
  }

  private func currentSecond() -> Int {
    Int((ContinuousClock.now - started).components.seconds)
  }
}
