import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// A socket's cookie (`SO_COOKIE`): a number Linux gives each socket, the same through
/// every descriptor of it. NIO does not show a channel's descriptor; the cookie finds it
/// among the process's descriptors, so that a hand-over can pass it to the service manager.
///
/// ```swift
/// let cookie = try await SocketCookie.of(channel).get()
/// let descriptor = cookie.flatMap { SocketCookie.descriptors()[$0] }
/// ```
enum SocketCookie {
  /// The cookie of a channel's socket; nil when the channel has no socket option provider
  /// (an embedded channel) or the kernel does not say.
  static func of(_ channel: any Channel) -> EventLoopFuture<UInt64?> {
    guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
    let cookie: EventLoopFuture<UInt64> = provider.unsafeGetSocketOption(
      level: NIOBSDSocket.OptionLevel(rawValue: SOL_SOCKET), name: NIOBSDSocket.Option(rawValue: 57 /* SO_COOKIE */))
    return cookie.map { Optional($0) }.recover { _ in nil }
  }

  /// The cookie of the socket a descriptor refers to; nil when it is not a socket.
  static func of(descriptor: Int32) -> UInt64? {
    var cookie: UInt64 = 0
    var length = socklen_t(MemoryLayout<UInt64>.size)
    return getsockopt(descriptor, SOL_SOCKET, 57 /* SO_COOKIE */, &cookie, &length) == 0 ? cookie : nil
  }

  /// The process's socket descriptors by their cookies (read from `/proc/self/fd`).
  static func descriptors() -> [UInt64: Int32] {
    guard let directory = opendir("/proc/self/fd") else { return [:] }
    defer { closedir(directory) }
    let own = dirfd(directory)
    var found: [UInt64: Int32] = [:]
    while let entry = readdir(directory) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      guard let descriptor = Int32(name), descriptor != own, let cookie = of(descriptor: descriptor) else { continue }
      found[cookie] = descriptor
    }
    return found
  }
}
