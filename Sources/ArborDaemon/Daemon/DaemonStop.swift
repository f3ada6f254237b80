import ArborLocking
import ServiceLifecycle

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
    var group: ServiceGroup?
    var triggered = false
  }

  private let state = LockedState(State())

  public init() {}

  func attach(_ group: ServiceGroup) async {
    let stopNow = state.withLock { state -> Bool in
      state.group = group
      return state.triggered
    }
    if stopNow { await group.triggerGracefulShutdown() }
  }

  /// Begins the stop; the daemon's `run` returns once it is done.
  public func trigger() async {
    let group = state.withLock { state -> ServiceGroup? in
      state.triggered = true
      return state.group
    }
    await group?.triggerGracefulShutdown()
  }
}
