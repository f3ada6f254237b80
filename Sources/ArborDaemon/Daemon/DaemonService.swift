import Arbor
import ArborJSON
import ArborRPC
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

#if canImport(Glibc)
  import Glibc
#endif

/// The daemon as a service of swift-service-lifecycle: binds the socket, accepts clients,
/// pumps changes to watchers, and on graceful shutdown drains and saves.
struct DaemonService: Service {
  let name: String
  let host: any TreeHost
  let options: DaemonOptions
  let paths: DaemonPaths
  let snapshotFile: SnapshotFile
  let logger: Logger

  func run() async throws {
    let stats = DaemonStats()
    let hub = WatchHub(historyLimit: options.history, logger: logger)
    let pump = ChangePump(host: host, hub: hub, logger: logger)
    let handler = RequestHandler(host: host, hub: hub, stats: stats, name: name, logger: logger) { pump.restart() }
    let policy = AccessPolicy(
      ownUID: getuid(), readers: options.readers.principals, operators: options.operators.principals,
      admins: options.admins.principals)
    let outboxes = OutboxRegistry()

    Self.raiseOpenFileLimit(logger: logger)
    do {
      try SocketFile.prepare(paths.socket)
    } catch {
      throw DaemonStartError(error.description)
    }
    let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.backlog, value: 1024)
      .childChannelOption(.allowRemoteHalfClosure, value: true)
      .bind(unixDomainSocketPath: paths.socket) { channel in
        PeerCredentials.of(channel).flatMapThrowing { credentials in
          let wrapped = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          return (wrapped, credentials)
        }
      }
    chmod(paths.socket, 0o660)
    logger.info("serving \(host.rootType) at revision \(host.revision) on \(paths.socket)")

    let serverChannel = server.channel
    await withGracefulShutdownHandler {
      await withDiscardingTaskGroup { group in
        group.addTask { await pump.run() }
        var nextID = 1
        do {
          try await server.executeThenClose { inbound in
            for try await (channel, credentials) in inbound {
              let id = nextID
              nextID += 1
              let role = credentials.flatMap { policy.role(uid: $0.uid, gid: $0.gid) }
              if stats.clients >= options.maxConnections {
                logger.warning("refused a connection (\(credentials?.description ?? "unknown peer")): \(options.maxConnections) are open")
                group.addTask { await Self.refuse(channel, limit: options.maxConnections) }
                continue
              }
              stats.clientConnected()
              let connection = Connection(
                id: id, channel: channel, credentials: credentials, role: role, handler: handler, hub: hub,
                options: options, logger: logger)
              group.addTask {
                defer { stats.clientDisconnected() }
                await connection.serve(register: { outbox in outboxes.add(outbox, id: id) })
                outboxes.remove(id: id)
              }
            }
          }
        } catch {
          logger.debug("the listening socket closed: \(error)")
        }
        // Stopping: no new clients. Let running intents finish, then save.
        logger.info("stopping: waiting for \(stats.intentsInFlight) running intents")
        handler.stopping.store(true, ordering: .relaxed)
        let deadline = ContinuousClock.now + .seconds(10)
        while stats.intentsInFlight > 0 && ContinuousClock.now < deadline {
          try? await Task.sleep(for: .milliseconds(10))
        }
        do {
          let data = try host.snapshotData()
          try await snapshotFile.write(data)
          logger.info("saved revision \(host.revision) to \(paths.snapshotFile)")
        } catch {
          logger.error("the final snapshot could not be saved: \(error)")
        }
        for outbox in outboxes.all { outbox.finish() }
        try? await Task.sleep(for: .milliseconds(100))
        group.cancelAll()
      }
    } onGracefulShutdown: {
      serverChannel.close(promise: nil)
    }
    unlink(paths.socket)
  }

  /// Connections are file descriptors: lift the soft limit to the hard one, so that
  /// `--max-connections` (not a default of 1,024 descriptors) is what bounds them.
  private static func raiseOpenFileLimit(logger: Logger) {
    var limit = rlimit()
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
    let soft = limit.rlim_cur
    limit.rlim_cur = limit.rlim_max
    if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
      logger.debug("open file limit raised from \(soft) to \(limit.rlim_max)")
    }
  }

  private static func refuse(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, limit: Int) async {
    let error = RPCError(
      code: -32000, message: "too many connections: the daemon serves at most \(limit) at once; try again later")
    let line = RPCResponse(id: .null, error: error).json.jsonLine
    try? await channel.executeThenClose { _, outbound in
      try await outbound.write(ByteBuffer(bytes: line))
    }
  }
}

/// The outboxes of the open connections, so that a stopping daemon can flush them.
final class OutboxRegistry: Sendable {
  private let outboxes = Mutex<[Int: Outbox]>([:])
  func add(_ outbox: Outbox, id: Int) { outboxes.withLock { $0[id] = outbox } }
  func remove(id: Int) { _ = outboxes.withLock { $0.removeValue(forKey: id) } }
  var all: [Outbox] { outboxes.withLock { Array($0.values) } }
}
