#if canImport(Glibc)
  import Glibc
#endif

/// Whether the other end of a connection has ended it, as its peer sees it: an end of input
/// or an error (a reset) on a read that does not wait.
///
/// ```swift
/// #expect(await ConnectionEnd.seen(on: client, within: .seconds(5)))
/// ```
enum ConnectionEnd {
  /// True once a read of `fd` finds the end of input or an error, false when neither comes
  /// within `limit`. Waits in ``SocketReadiness``, holding no thread.
  static func seen(on fd: Int32, within limit: Duration) async -> Bool {
    let deadline = ContinuousClock.now + limit
    var byte: UInt8 = 0
    while ContinuousClock.now < deadline {
      let count = recv(fd, &byte, 1, Int32(MSG_DONTWAIT))
      if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return true }
      if count < 0 { _ = await SocketReadiness.shared.readable(fd, until: deadline) }
    }
    return false
  }
}
