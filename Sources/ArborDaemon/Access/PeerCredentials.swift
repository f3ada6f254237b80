import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// Who is at the other end of a Unix socket connection, as the kernel says (`SO_PEERCRED`).
public struct PeerCredentials: Sendable, Hashable, CustomStringConvertible {
  public var pid: Int32
  public var uid: UInt32
  public var gid: UInt32

  public init(pid: Int32, uid: UInt32, gid: UInt32) {
    self.pid = pid
    self.uid = uid
    self.gid = gid
  }

  public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

  /// The layout of Linux's `struct ucred`: three 32-bit fields.
  private struct UCred: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
  }

  /// Reads the credentials of a connected Unix socket channel.
  static func of(_ channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
    guard let provider = channel as? any SocketOptionProvider else {
      return channel.eventLoop.makeSucceededFuture(nil)
    }
    let future: EventLoopFuture<UCred> = provider.unsafeGetSocketOption(
      level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
    return future.map { PeerCredentials(pid: $0.pid, uid: $0.uid, gid: $0.gid) }.recover { _ in nil }
  }
}
