/// One intent a standby forwarded, as the leader gets it (``StoreIntentForwarding``).
///
/// ```swift
/// let intent = ForwardedIntent(id: 7, sender: "todosd (pid 41 on host-b)", request: #"{"intent":"add","target":"/"}"#)
/// ```
public struct ForwardedIntent: Sendable, Hashable {
  /// Its place in the store's queue.
  public var id: Int64
  /// Who sent it (the standby's name, pid and host).
  public var sender: String
  /// The `intent.call` request's `params`, as JSON text.
  public var request: String

  public init(id: Int64, sender: String, request: String) {
    self.id = id
    self.sender = sender
    self.request = request
  }
}
