import ArborRPC
import NIOConcurrencyHelpers
import Foundation
import Synchronization

/// Counters for `daemon.status`: clients, intents in flight and the recent intent rate.
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

  private let started = ContinuousClock.now
  private let state = NIOLockedValueBox(State())
  /// The window the intent rate is averaged over, in seconds.
  let window = 10

  func clientConnected() { state.withLockedValue { $0.clients += 1 } }
  func clientDisconnected() { state.withLockedValue { $0.clients -= 1 } }
  func intentStarted() { state.withLockedValue { $0.intentsInFlight += 1 } }

  /// An intent ended; `counted: false` when it did not run after all (it goes on in a
  /// task, and is counted when that ends), so it is not in the rate twice.
  func intentFinished(counted: Bool = true) {
    let second = currentSecond()
    state.withLockedValue { state in
      state.intentsInFlight -= 1
      guard counted else { return }
      state.buckets[second, default: 0] += 1
      if state.buckets.count > window * 2 {
        state.buckets = state.buckets.filter { $0.key > second - window }
      }
    }
  }

  var clients: Int { state.withLockedValue { $0.clients } }
  var intentsInFlight: Int { state.withLockedValue { $0.intentsInFlight } }

  func snapshot() -> Snapshot {
    let now = currentSecond()
    let uptime = ContinuousClock.now - started
    let seconds = Double(uptime.components.seconds) + Double(uptime.components.attoseconds) / 1e18
    return state.withLockedValue { state in
      let recent = state.buckets.filter { $0.key > now - window && $0.key <= now }.values.reduce(0, +)
      let span = min(Double(window), max(seconds, 1))
      return Snapshot(uptime: seconds, clients: state.clients, intentsInFlight: state.intentsInFlight, intentsPerSecond: Double(recent) / span)
    }
  }

  private func currentSecond() -> Int {
    Int((ContinuousClock.now - started).components.seconds)
  }
}

/// The version `daemon.status` reports.
public enum ArborDaemonVersion {
  public static let current = ArborProtocol.release
}
