/// How long a call of an intent waits before it returns.
///
/// ```swift
/// let outcome = try await IntentDispatcher(anchor).call("factButtonTapped", on: .path("/counters/0/counter"), wait: .settled)
/// // The fact has been fetched and stored: outcome.revision includes it.
/// ```
public enum IntentWait: String, Sendable, Hashable, CaseIterable {
  /// Until the intent returned: its synchronous writes are committed.
  case committed
  /// Also until every task it started (with `node.task`, `node.forEach`, …) has ended,
  /// and every task those started, and so on. A task that never ends (a `forEach` over an
  /// endless stream) never lets the call return.
  case settled
}
