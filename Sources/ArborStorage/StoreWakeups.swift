/// The wake-ups of a loop that reads a store when something changed in it (a standby
/// following the leader's journal or events): the backend yields on ``stream`` when it
/// learns of a change and now and then besides, coalesced while the loop is busy;
/// ``cancel()`` stops it, and the stream ends.
///
/// ```swift
/// let wakeups = shared.journalWakeups(every: .seconds(1))
/// defer { wakeups.cancel() }
/// for await _ in wakeups.stream { await readTheJournal() }
/// ```
public final class StoreWakeups: Sendable {
  /// One element per wake-up (several changes while the reader was busy make one).
  public let stream: AsyncStream<Void>
  private let stop: @Sendable () -> Void

  /// Wake-ups on `stream`, which `cancel` stops (it must end the stream, and may be called
  /// more than once).
  ///
  /// ```swift
  /// let (stream, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
  /// let wakeups = StoreWakeups(stream: stream) { wake.finish() }
  /// ```
  public init(stream: AsyncStream<Void>, cancel: @escaping @Sendable () -> Void) {
    self.stream = stream
    self.stop = cancel
  }

  /// Stops the wake-ups; the stream ends.
  public func cancel() { stop() }
}
