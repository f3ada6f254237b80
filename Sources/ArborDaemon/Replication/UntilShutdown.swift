import ServiceLifecycle

/// Runs `work` until the service group shuts down gracefully (or the service is
/// cancelled), then cancels it and returns at once, without waiting for it to notice: a
/// standby's reading of the store must not hold up a stop or a takeover (a read the
/// server does not answer ends at its deadline, with nobody waiting on it).
///
/// ```swift
/// func run() async throws { await untilShutdown { await follow() } }
/// ```
func untilShutdown(_ work: @escaping @Sendable () async -> Void) async {
  let working = Task { await work() }
  try? await gracefulShutdown()
  working.cancel()
}
