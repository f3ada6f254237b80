/// How a watch behaves when its connection to the daemon is lost: whether it connects
/// again, how long it waits between attempts, and when it gives up.
///
/// ```swift
/// let client = ArborClient(socketPath: path, reconnect: .init(giveUpAfter: .seconds(300)))
/// let quitting = ArborClient(socketPath: path, reconnect: .never)
/// ```
public struct ReconnectPolicy: Sendable, Hashable {
  /// Whether a lost connection is opened again at all.
  public var enabled: Bool
  /// The wait before the first attempt; it doubles after each failed one.
  public var initialDelay: Duration
  /// The longest wait between two attempts.
  public var maxDelay: Duration
  /// How long the daemon may stay unreachable before the watch ends with
  /// ``ArborClientError/cannotConnect(path:reason:)``; nil for never.
  public var giveUpAfter: Duration?

  public init(enabled: Bool = true, initialDelay: Duration = .milliseconds(50), maxDelay: Duration = .seconds(2), giveUpAfter: Duration? = .seconds(60)) {
    self.enabled = enabled
    self.initialDelay = initialDelay
    self.maxDelay = maxDelay
    self.giveUpAfter = giveUpAfter
  }

  /// Connect again after a loss, for up to a minute: a restarting daemon is waited for.
  public static let `default` = ReconnectPolicy()
  /// A lost connection ends the watch with ``ArborClientError/connectionClosed``.
  public static let never = ReconnectPolicy(enabled: false)
}
