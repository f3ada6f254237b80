import ConcurrencyExtras

/// A handle on work started by a model (`node.task`, `node.forEach`): cancel it early, or
/// give it ids to cancel it by.
///
/// All of a model's work is cancelled when the model is deactivated; a `Cancellable` is
/// for cancelling sooner.
///
/// ```swift
/// func startSearch() {
///   node.task { try await search() }.cancelInFlight()
/// }
/// func stopPolling() {
///   node.cancelAll(for: "polling")
/// }
/// ```
public struct Cancellable: Sendable {
  let context: AnyModelContext?
  let entry: Entry?
  let inheritable: [AnyHashableSendable]

  /// The registry entry, carried across tasks; read only under its context's lock.
  final class Entry: @unchecked Sendable {  // Sendable: `value` is only read or changed under the owning context's tree lock
    let value: CancellableEntry
    init(_ value: CancellableEntry) { self.value = value }
  }

  /// A handle on nothing: the work was never started (its model is destructed).
  static let none = Cancellable(context: nil, entry: nil, inheritable: [])

  /// Cancels the work now.
  public func cancel() {
    guard let context, let entry else { return }
    context.cancel(entry.value)
  }

  /// Gives the work an id: `node.cancelAll(for: id)` cancels it. With `cancelInFlight`,
  /// work already running under the same id is cancelled first, so that only the newest
  /// runs.
  ///
  /// ```swift
  /// node.task { try await save() }.cancel(for: "save", cancelInFlight: true)
  /// ```
  @discardableResult
  public func cancel(for id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Cancellable {
    guard let context, let entry else { return self }
    context.add(key: AnyHashableSendable(id), to: entry.value, cancelInFlight: cancelInFlight)
    return self
  }

  /// Cancels work started earlier from the same place in the source, then keeps this one:
  /// calling the same function again replaces the work in flight.
  @discardableResult
  public func cancelInFlight(fileID: String = #fileID, line: UInt = #line, column: UInt = #column) -> Cancellable {
    cancel(for: SourceLocationID(fileID: fileID, line: line, column: column), cancelInFlight: true)
  }

  /// Makes the work cancelled with the cancellation context of the task it was started
  /// from, so that `node.cancelAll(for:)` on that context reaches nested work too.
  @discardableResult
  public func inheritCancellationContext() -> Cancellable {
    guard let context, let entry else { return self }
    for key in inheritable {
      context.add(key: key, to: entry.value, cancelInFlight: false)
    }
    return self
  }
}

/// The id `cancelInFlight()` derives from a source location.
struct SourceLocationID: Hashable, Sendable {
  let fileID: String
  let line: UInt
  let column: UInt
}
