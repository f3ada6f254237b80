import ArborLocking

/// What a daemon process keeps until it exits, instead of taking it apart first.
///
/// A process that handed its connections to the next one (through the service manager's
/// descriptor store, or an upgrade) ends with its models going on there: deactivating a
/// tree of 100,000 models, model by model, took 110–180 ms under load, and under systemd
/// the next process starts only once this one has exited. So the tree is kept, and the
/// process exits with it (and with the rest of its parts: the watch hub's copy of the
/// state, the connections' buffers); its tasks end with the process. Only a daemon that owns its
/// process does this (one hosted in a test's process takes its tree apart as before).
///
/// ```swift
/// if parts.handedOver.load(ordering: .relaxed) { ProcessEnd.keep(parts) }
/// ```
enum ProcessEnd {
  private static let kept = LockedState<[any AnyObject & Sendable]>([])

  /// Keeps `object` alive until the process exits.
  static func keep(_ object: some AnyObject & Sendable) {
    kept.withLock { $0.append(object) }
  }
}
