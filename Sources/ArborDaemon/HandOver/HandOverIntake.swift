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
  private static let passed = Mutex<[ListenSockets.Socket]>([])
  private static let currentGeneration = Atomic<Int>(0)

  /// Keeps the hand-over's descriptors for the socket server.
  static func offer(_ sockets: [ListenSockets.Socket]) {
    passed.withLock { $0 += sockets }
  }

  /// The hand-over's descriptors, once: a later role of the same process finds none.
  static func take() -> [ListenSockets.Socket] {
    passed.withLock { passed in
      defer { passed = [] }
      return passed
    }
  }

  /// How many hand-overs led to this process: 0 for a fresh start.
  static var generation: Int {
    get { currentGeneration.load(ordering: .relaxed) }
    set { currentGeneration.store(newValue, ordering: .relaxed) }
  }
}
