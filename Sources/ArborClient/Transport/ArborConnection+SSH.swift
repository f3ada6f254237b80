import ArborRPC
import NIOCore
import NIOPosix

extension ArborConnection {
  /// Connects to a daemon on another machine through ssh: starts `ssh … [user@]host --
  /// arborctl bridge [--socket PATH]` (``SSHCommand``) and speaks the protocol over its
  /// standard input and output. The remote `arborctl bridge` connects to the daemon's
  /// socket as the remote user, whose peer credentials decide the role.
  ///
  /// It returns once the daemon has answered a first `daemon.status` through the tunnel (any
  /// answer, a refusal too): ssh that cannot log in, and a bridge that finds no daemon, are
  /// ``ArborClientError/cannotConnect(path:reason:)`` with the last line ssh (or the remote
  /// arborctl) wrote on standard error. Later, ssh that ends on its own (the network, sshd)
  /// fails the calls waiting with ``ArborClientError/transportEnded(address:reason:)``; a
  /// daemon that goes away is ``ArborClientError/connectionClosed``, as on a socket.
  ///
  /// ```swift
  /// let connection = try await ArborConnection.connect(over: try SSHAddress(parsing: "ssh://ops@build-1"))
  /// defer { connection.close() }
  /// let count = try await connection.call("state.get", ["path": "/counters/0/counter/count"])
  /// ```
  public static func connect(
    over address: SSHAddress, command: SSHCommand = .fromEnvironment(), maxLineLength: Int = 64 << 20
  ) async throws(ArborClientError) -> ArborConnection {
    let name = address.description
    let process = try SSHProcess.spawn(command.arguments(for: address), address: name)
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    do {
      channel = try await NIOPipeBootstrap(group: MultiThreadedEventLoopGroup.singleton)
        .takingOwnershipOfDescriptors(input: process.fromChild, output: process.toChild) { channel in
          channel.eventLoop.makeCompletedFuture {
            try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
          }
        }
    } catch {
      process.terminate()
      throw .cannotConnect(path: name, reason: "cannot read ssh's output: \(error)")
    }
    let connection = await start(channel, connection: ArborConnection(maxLineLength: maxLineLength, transport: (process, name)))
    // Any reply will do (a refusal too): what comes back is the daemon's.
    let handshake: Result<RPCResponse, ArborClientError> = await withTaskCancellationHandler {
      do throws(ArborClientError) {
        return .success(try await connection.request(ArborMethod.status.rawValue))
      } catch {
        return .failure(error)
      }
    } onCancel: {
      connection.close()
    }
    if case .failure = handshake {
      connection.close()
      if Task.isCancelled { process.terminate() }
      throw .cannotConnect(path: name, reason: await process.endedOrTerminated(after: .seconds(2)).reason)
    }
    return connection
  }
}
