import ArborClient
import ArborLocking
import Foundation
import PostgresTestServer
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// A TCP link on loopback to a server's Unix socket that a test can cut the way a network
/// cut does: bytes stop in both directions while both ends stay open, so neither side is
/// told. ``serverNotices()`` then closes the server's side (as its keepalives would), and
/// ``restore()`` lets bytes through again: the connections cut meanwhile are reset, as the
/// first packet after a real cut would find them.
///
/// ```swift
/// let link = try CuttableLink(to: "/tmp/pg/.s.PGSQL.5432")
/// // counterfactd --store postgres://postgres@127.0.0.1:\(link.port)/db
/// link.cut(); link.serverNotices(); link.restore()
/// ```
final class CuttableLink: Sendable {
  let port: Int
  private let shared: Shared

  /// What the link's threads share: whether it is cut, and its connections.
  private final class Shared: Sendable {
    let listener: Int32
    let cut = Atomic<Bool>(false)
    // A pthread lock, which ThreadSanitizer sees (it reported this list through `Mutex`).
    let connections = LockedState<[Connection]>([])

    init(listener: Int32) { self.listener = listener }
  }

  /// One connection through the link: the client's and the server's descriptors, owned by
  /// its two pumps. Neither is closed while a pump may still use it (the last pump out
  /// closes both): a descriptor closed under a pump is soon another connection's, and the
  /// old pump would read that connection's bytes and lose them.
  private final class Connection: Sendable {
    let client: Int32
    let server: Int32
    /// The server noticed the client gone: its side is shut down; the client's side
    /// stays open and silent until ``reset``.
    let serverGone = Atomic<Bool>(false)
    /// The connection ends: with a reset for the client when its server side was gone.
    let ended = Atomic<Bool>(false)
    private let pumps = Atomic<Int>(2)

    init(client: Int32, server: Int32) {
      self.client = client
      self.server = server
    }

    /// Ends the connection; both pumps leave within a poll's timeout.
    func end() {
      ended.store(true, ordering: .releasing)
      shutdown(server, Int32(SHUT_RDWR))
      // The client's side is only shut down for an orderly end; a reset closes it.
      if !serverGone.load(ordering: .acquiring) { shutdown(client, Int32(SHUT_RDWR)) }
    }

    /// A pump left; the last one closes both descriptors.
    func pumpLeft() {
      guard pumps.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 else { return }
      if serverGone.load(ordering: .acquiring) {
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
      }
      close(client)
      close(server)
    }
  }

  init(to path: String) throws {
    // Every descriptor of the link is closed on exec: a daemon another test starts
    // meanwhile would otherwise hold a copy, and closing the server's side would not end
    // the connection.
    let (listener, port) = try boundLoopbackSocket(closeOnExec: true)
    guard Glibc.listen(listener, 64) == 0 else {
      close(listener)
      throw HarnessError("the link could not listen on loopback: \(errno)")
    }
    self.port = port
    let shared = Shared(listener: listener)
    self.shared = shared
    Thread.detachNewThread {
      while true {
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { continue }
        // Close-on-exec from the start: a daemon spawned in a window between accept and
        // fcntl kept a copy of a connection, and the reset it was to get never came.
        let client = (try? ChildDescriptors.accept(listener)) ?? -1
        guard client >= 0 else { continue }
        guard let server = try? RawSocket.connectedDescriptor(to: path) else {
          close(client)
          continue
        }
        let connection = Connection(client: client, server: server)
        shared.connections.withLock { $0.append(connection) }
        Self.pump(connection, fromClient: true, shared)
        Self.pump(connection, fromClient: false, shared)
      }
    }
  }

  /// Copies bytes one way until either end closes; holds them while the link is cut.
  private static func pump(_ connection: Connection, fromClient: Bool, _ shared: Shared) {
    let (source, destination) = fromClient ? (connection.client, connection.server) : (connection.server, connection.client)
    Thread.detachNewThread {
      defer { connection.pumpLeft() }
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        if connection.ended.load(ordering: .acquiring) { return }
        // A server side that is gone sends nothing more; the client's side waits, silent,
        // for the reset.
        if connection.serverGone.load(ordering: .acquiring) {
          if !fromClient { return }
          usleep(20_000)
          continue
        }
        if shared.cut.load(ordering: .acquiring) {
          usleep(20_000)
          continue
        }
        var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 50) > 0 else { continue }
        if shared.cut.load(ordering: .acquiring) || connection.serverGone.load(ordering: .acquiring) { continue }
        let count = read(source, &buffer, buffer.count)
        if count <= 0 {
          connection.end()
          return
        }
        var sent = 0
        while sent < count {
          let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
          if written <= 0 {
            connection.end()
            return
          }
          sent += written
        }
      }
    }
  }

  /// Stops every byte, both ways; nobody is told.
  func cut() { shared.cut.store(true, ordering: .releasing) }

  /// The server notices that the clients are gone (its keepalives would): its side of each
  /// connection cut so far is closed, the clients' sides stay open and silent.
  func serverNotices() {
    for connection in shared.connections.withLock({ $0 }) where !connection.ended.load(ordering: .acquiring) {
      connection.serverGone.store(true, ordering: .releasing)
      shutdown(connection.server, Int32(SHUT_RDWR))
    }
  }

  /// Lets bytes through again. A connection whose server side is gone is reset, as the
  /// first packet after a real cut would find it.
  func restore() {
    let stale = shared.connections.withLock { connections -> [Connection] in
      connections.removeAll { $0.ended.load(ordering: .acquiring) }
      let stale = connections.filter { $0.serverGone.load(ordering: .acquiring) }
      connections.removeAll { $0.serverGone.load(ordering: .acquiring) }
      return stale
    }
    shared.cut.store(false, ordering: .releasing)
    for connection in stale { connection.end() }
  }

  /// How many connections the link has carried that are still open.
  var openConnections: Int { shared.connections.withLock { $0.filter { !$0.ended.load(ordering: .acquiring) }.count } }

  // No deinit closes the link: Swift may release it after a test's last use of it, while
  // the daemons it carries still talk through it. Its connections end with their ends;
  // its listener lives as long as the test process.
}

extension CuttableLink {
  /// A link to the tests' PostgreSQL server (``PostgresTestServer``), and the address of
  /// the database at `address` through it, for `--store`.
  static func toDatabase(at address: String) async throws -> (link: CuttableLink, address: String) {
    let server = try await PostgresTestServer.server()
    guard let database = address.split(separator: "?").first?.split(separator: "/").last else {
      throw HarnessError("no database name in \(address)")
    }
    let link = try CuttableLink(to: "\(server.directory)/.s.PGSQL.\(server.port)")
    return (link, "postgres://postgres@127.0.0.1:\(link.port)/\(database)")
  }
}
