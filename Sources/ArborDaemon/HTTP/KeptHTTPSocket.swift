#if HTTP
import ArborLocking
import ArborSystemd
import Logging
import NIOCore

#if canImport(Glibc)
  import Glibc
#endif

/// The HTTP listener's socket kept across a restart, as the Unix socket is: made here
/// rather than by NIO, so that a duplicate can go to the service manager's descriptor
/// store (named ``name``) and to an upgrade's new process. The next process serves the same
/// socket when its `--http` names the same address: a browser, a scrape of `/metrics` or a
/// health check that connects while no process runs waits in the socket's backlog instead
/// of being refused.
///
/// ```swift
/// let descriptor = try KeptHTTPSocket.listener(for: address, backlog: 256, notifier: parts.notifier)
/// ```
enum KeptHTTPSocket {
  /// Its name in the descriptor store and in an upgrade's hand-over. Not `http`, the name
  /// of a socket unit's socket: a socket systemd passes as `http` is served whatever
  /// `--http` says, a kept one only when `--http` still names its address.
  static let name = HandOverState.httpListenerName

  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  /// The socket this process listens on, duplicated, with its address; nil before the
  /// listener has one.
  private static let kept = LockedState<(address: HTTPAddress, descriptor: Int32)?>(nil)

  /// A kept socket the previous process passed (from the service manager's store or an
  /// upgrade), until the listener takes it.
  private static let passed = LockedState<Int32?>(nil)

  /// Takes the kept socket among those passed at start: the listener serves it if `--http`
  /// names its address. Returns the others.
  static func intake(_ sockets: [ListenSockets.Socket]) -> [ListenSockets.Socket] {
    guard let socket = sockets.first(where: { $0.name == name }) else { return sockets }
    passed.withLock { earlier in
      if let earlier { close(earlier) }
      earlier = socket.descriptor
    }
    return sockets.filter { $0.name != name }
  }

  /// A listening socket for `address`, for NIO to serve and close: the one the previous
  /// process passed when it listens there (port 0: whatever port it has), else a new one,
  /// handed to the service manager's store (when it keeps descriptors). A passed socket
  /// that listens elsewhere (`--http` changed) is closed, and the store lets go of it.
  static func listener(for address: HTTPAddress, backlog: Int32, notifier: SystemdNotifier, logger: Logger) throws -> Int32 {
    if let current = kept.withLock({ $0 }), current.address == address {
      let duplicate = fcntl(current.descriptor, F_DUPFD_CLOEXEC, 3)
      if duplicate >= 0 { return duplicate }
    }
    if let descriptor = passed.withLock({ passed -> Int32? in defer { passed = nil }; return passed }) {
      if let local = localAddress(of: descriptor), matches(local, address) {
        keep(descriptor, address: address)
        logger.info("the HTTP listener serves the socket the process before it listened on (\(local))")
        return descriptor
      }
      close(descriptor)
      notifier.removeStored(name: name)
      logger.notice("the HTTP socket the process before it listened on is not \(address) (--http changed): closed")
    }
    let descriptor = try bound(to: address, backlog: backlog)
    let listening = localAddress(of: descriptor) ?? address
    keep(descriptor, address: address)
    if notifier.descriptorStoreSize > 0 && !notifier.store(descriptor, name: name) {
      logger.warning("the service manager did not take the HTTP socket (\(listening)) to keep across a restart (FDSTORE=1)")
    }
    return descriptor
  }

  /// Closes a kept socket the previous process passed, which this one will not serve (no
  /// `--http`, or a socket unit's socket instead), and tells the store to let go of it.
  static func discard(notifier: SystemdNotifier, logger: Logger) {
    guard let descriptor = passed.withLock({ passed -> Int32? in defer { passed = nil }; return passed }) else { return }
    let local = localAddress(of: descriptor)
    close(descriptor)
    notifier.removeStored(name: name)
    logger.notice("closed the HTTP socket the process before it listened on\(local.map { " (\($0))" } ?? ""): this daemon serves no --http address")
  }

  /// A new duplicate of the socket the listener serves, for an upgrade to pass; nil when
  /// there is none.
  static func duplicate() -> Int32? {
    kept.withLock { kept in
      guard let kept else { return nil }
      let duplicate = fcntl(kept.descriptor, F_DUPFD_CLOEXEC, 3)
      return duplicate >= 0 ? duplicate : nil
    }
  }

  private static func keep(_ descriptor: Int32, address: HTTPAddress) {
    let duplicate = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
    guard duplicate >= 0 else { return }
    kept.withLock { kept in
      if let earlier = kept { close(earlier.descriptor) }
      kept = (address, duplicate)
    }
  }

  /// Whether a socket listening on `local` serves `address`: the same host's address and
  /// the same port, or any port for port 0.
  static func matches(_ local: HTTPAddress, _ address: HTTPAddress) -> Bool {
    guard address.port == 0 || address.port == local.port else { return false }
    guard let wanted = try? SocketAddress.makeAddressResolvingHost(address.host, port: local.port) else { return false }
    return wanted.ipAddress == local.host
  }

  /// A TCP socket bound to `address` and listening, close-on-exec, with `SO_REUSEADDR` as
  /// NIO's own bind sets it.
  static func bound(to address: HTTPAddress, backlog: Int32) throws -> Int32 {
    let resolved: SocketAddress
    do {
      resolved = try SocketAddress.makeAddressResolvingHost(address.host, port: address.port)
    } catch {
      throw Failure(description: "\(error)")
    }
    let family = resolved.protocol.rawValue
    let descriptor = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { throw Failure(description: "cannot make a socket: \(String(cString: strerror(errno)))") }
    var one: Int32 = 1
    setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
    let result = resolved.withSockAddr { pointer, length in bind(descriptor, pointer, socklen_t(length)) }
    guard result == 0, listen(descriptor, backlog) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw Failure(description: reason)
    }
    return descriptor
  }

  /// The address `descriptor` listens on.
  static func localAddress(of descriptor: Int32) -> HTTPAddress? {
    var storage = sockaddr_storage()
    var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
    let result = withUnsafeMutablePointer(to: &storage) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
    }
    guard result == 0 else { return nil }
    let address: SocketAddress
    switch Int32(storage.ss_family) {
    case AF_INET:
      address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { SocketAddress($0.pointee, host: "") } }
    case AF_INET6:
      address = withUnsafePointer(to: &storage) { $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { SocketAddress($0.pointee, host: "") } }
    default:
      return nil
    }
    guard let host = address.ipAddress, let port = address.port else { return nil }
    return HTTPAddress(host: host, port: port)
  }
}
#endif
