import ConcurrencyExtras

/// The cancellation ids in force where work is started.
enum CancellationScope {
  /// Ids from enclosing `node.cancellationContext(for:)` calls: new work gets them.
  @TaskLocal static var keys: [AnyHashableSendable] = []

  /// The ids of the task that is running, which nested work can opt into with
  /// `inheritCancellationContext()`.
  @TaskLocal static var inheritable: [AnyHashableSendable] = []
}
