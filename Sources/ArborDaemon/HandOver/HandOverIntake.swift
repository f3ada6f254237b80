import ArborLocking
import ArborSystemd
import Synchronization

/// The descriptors of a hand-over among those systemd passed at start (the connections
/// and the state, ``HandOverState/isHandedOver(_:)``), kept from the moment the daemon
/// reads them until its socket serves and takes them (``ConnectionHandOver/adopt(_:)``);
/// and the generation the daemon runs as.
///
/// ```swift
/// HandOverIntake.offer(ListenSockets.take().filter { HandOverState.isHandedOver($0.name) })
/// ```
enum HandOverIntake {
  private static let passed = LockedState<(sockets: [ListenSockets.Socket], at: ContinuousClock.Instant)>(([], .now))
  private static let currentGeneration = Atomic<Int>(0)

  /// Keeps the hand-over's descriptors for the socket server. Their clients wait from now
  /// (the process before this one had stopped).
  static func offer(_ sockets: [ListenSockets.Socket]) {
    passed.withLock { $0 = ($0.sockets + sockets, .now) }
  }

  /// The hand-over's descriptors, once, and when they were offered: a later role of the
  /// same process finds none.
  static func take() -> (sockets: [ListenSockets.Socket], offeredAt: ContinuousClock.Instant) {
    passed.withLock { passed in
      defer { passed.sockets = [] }
      return (passed.sockets, passed.at)
    }
  }

  /// How many hand-overs led to this process: 0 for a fresh start.
  static var generation: Int {
    get { currentGeneration.load(ordering: .relaxed) }
    set { currentGeneration.store(newValue, ordering: .relaxed) }
  }
}
