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
  private let listener: Int32
  private struct State {
    var cut = false
    var closed = false
    /// Each connection: the client's and the server's descriptors.
    var pairs: [(client: Int32, server: Int32)] = []
  }
  private let state = Mutex(State())

  init(to path: String) throws {
    // Every descriptor of the link is closed on exec: a daemon another test starts
    // meanwhile would otherwise hold a copy, and closing the server's side would not end
    // the connection.
    let (listener, port) = try boundLoopbackSocket(closeOnExec: true)
    guard Glibc.listen(listener, 64) == 0 else {
      close(listener)
      throw HarnessError("the link could not listen on loopback: \(errno)")
    }
    self.listener = listener
    self.port = port
    Thread.detachNewThread { [self] in
      while !state.withLock({ $0.closed }) {
        var poller = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 100) > 0 else { continue }
        let client = accept(listener, nil, nil)
        guard client >= 0 else { continue }
        // (accept4 is not exported to Swift by Glibc; the window before this is a few
        // instructions, not the connection's life.)
        _ = fcntl(client, F_SETFD, FD_CLOEXEC)
        guard let server = try? RawSocket.connectedDescriptor(to: path) else {
          close(client)
          continue
        }
        state.withLock { $0.pairs.append((client, server)) }
        pump(from: client, to: server)
        pump(from: server, to: client)
      }
    }
  }

  /// Copies bytes one way until either end closes; holds them while the link is cut.
  private func pump(from source: Int32, to destination: Int32) {
    Thread.detachNewThread { [self] in
      var buffer = [UInt8](repeating: 0, count: 65_536)
      while true {
        let (cut, closed, alive) = state.withLock { state in
          (state.cut, state.closed, state.pairs.contains { $0.client == source || $0.server == source })
        }
        if closed || !alive { return }
        if cut {
          usleep(20_000)
          continue
        }
        var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
        guard poll(&poller, 1, 50) > 0 else { continue }
        if state.withLock({ $0.cut }) { continue }
        let count = read(source, &buffer, buffer.count)
        if count <= 0 {
          drop(source)
          return
        }
        var sent = 0
        while sent < count {
          let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
          if written <= 0 {
            drop(source)
            return
          }
          sent += written
        }
      }
    }
  }

  /// Closes both ends of the connection `descriptor` belongs to.
  private func drop(_ descriptor: Int32) {
    let pair = state.withLock { state -> (client: Int32, server: Int32)? in
      guard let index = state.pairs.firstIndex(where: { $0.client == descriptor || $0.server == descriptor }) else { return nil }
      return state.pairs.remove(at: index)
    }
    if let pair {
      shutdown(pair.client, Int32(SHUT_RDWR))
      close(pair.client)
      close(pair.server)
    }
  }

  /// Stops every byte, both ways; nobody is told.
  func cut() { state.withLock { $0.cut = true } }

  /// The server notices that the clients are gone (its keepalives would): its side of each
  /// connection cut so far is closed, the clients' sides stay open and silent.
  func serverNotices() {
    let servers = state.withLock { state -> [Int32] in
      defer { state.pairs = state.pairs.map { ($0.client, -1) } }
      return state.pairs.map(\.server)
    }
    for server in servers where server >= 0 { close(server) }
  }

  /// Lets bytes through again. A connection whose server side is gone is reset, as the
  /// first packet after a real cut would find it.
  func restore() {
    let stale = state.withLock { state -> [Int32] in
      let stale = state.pairs.filter { $0.server < 0 }.map(\.client)
      state.pairs.removeAll { $0.server < 0 }
      state.cut = false
      return stale
    }
    for client in stale {
      var reset = linger(l_onoff: 1, l_linger: 0)
      setsockopt(client, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
      close(client)
    }
  }

  deinit {
    let pairs = state.withLock { state -> [(client: Int32, server: Int32)] in
      state.closed = true
      defer { state.pairs = [] }
      return state.pairs
    }
    for pair in pairs {
      close(pair.client)
      if pair.server >= 0 { close(pair.server) }
    }
    close(listener)
  }
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
