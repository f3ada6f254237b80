import ArborLocking

/// Stops a daemon started with ``ArborDaemon/run(until:handlingSignals:started:)`` the way
/// SIGTERM does: no new clients, running intents finish, a final snapshot is saved.
///
/// ```swift
/// let stop = DaemonStop()
/// async let done: Void = daemon.run(until: stop, handlingSignals: false) { _ in }
/// await stop.trigger()
/// try await done
/// ```
public final class DaemonStop: Sendable {
  private struct State {
    var leadership: Leadership?
    var triggered = false
  }

  private let state = LockedState(State())

  public init() {}

  /// The daemon's leadership, told of the stop (at once when it was triggered before).
  func attach(_ leadership: Leadership) async {
    let stopNow = state.withLock { state -> Bool in
      state.leadership = leadership
      return state.triggered
    }
    if stopNow { await leadership.stopRequested() }
  }

  /// Begins the stop; the daemon's `run` returns once it is done.
  public func trigger() async {
    let leadership = state.withLock { state -> Leadership? in
      state.triggered = true
      return state.leadership
    }
    await leadership?.stopRequested()
  }
}
