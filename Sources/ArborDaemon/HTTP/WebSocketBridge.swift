#if HTTP
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOPosix

#if canImport(Glibc)
  import Glibc
#endif

/// Serves an inspector WebSocket as one more connection of the daemon: a socket pair, one
/// end admitted like a client of the Unix socket (``DaemonParts/accept(_:role:peer:options:)``,
/// so the same pipeline, limits, roles, watches and slow-reader rules apply), the other end
/// carried to the WebSocket here: each text message in is a request line, each line out is
/// a text message.
///
/// A client that does not read holds the line it is sent; the daemon's end then fills up to
/// `--max-output-bytes` and closes, and so does the WebSocket. At a hand-over it closes
/// with 1012 (service restart): the client comes back to the next process. A message
/// longer than `--max-line-bytes` closes the WebSocket (1009, message too big). A daemon
/// short of file descriptors closes a new one with 1013 (try again later).
enum WebSocketBridge {
  /// The close code a WebSocket gets at a hand-over (RFC 6455's registry: service restart).
  static let serviceRestart: UInt16 = 1012
  static let restartReason = "the daemon is restarting; reconnect"

  static func serve(
    inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter, role: Role, peer: String, parts: DaemonParts
  ) async throws {
    // The socket pair's two ends count against the descriptors given to connections;
    // refused, 1013 (try again later).
    guard DescriptorBudget.shared.takePair() else {
      parts.logger.warning("refused an inspector WebSocket (\(peer)): the daemon is short of file descriptors")
      try await outbound.close(.unknown(1013), reason: "the daemon is short of file descriptors; try again later")
      return
    }
    defer { DescriptorBudget.shared.givePair() }
    parts.webSocketsServing.add(1, ordering: .relaxed)
    defer { if parts.webSocketsServing.subtract(1, ordering: .releasing).newValue == 0 { parts.webSocketsEnded.signal() } }
    var descriptors: [Int32] = [-1, -1]
    guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &descriptors) == 0 else {
      parts.logger.error("an inspector WebSocket cannot be served: socketpair failed (errno \(errno))")
      try await outbound.close(.unexpectedServerError, reason: "the daemon cannot open a connection")
      return
    }
    let options = parts.live.withLock { $0 }
    do {
      _ = try await ClientBootstrap(group: parts.eventLoops)
        .channelOption(.allowRemoteHalfClosure, value: true)
        .channelInitializer { channel in
          channel.eventLoop.makeCompletedFuture { try parts.accept(channel, role: role, peer: peer, options: options, bridged: true) }
        }
        .withConnectedSocket(descriptors[0]).get()
    } catch {
      close(descriptors[0])
      close(descriptors[1])
      throw error
    }
    let bridge = try await ClientBootstrap(group: parts.eventLoops).withConnectedSocket(descriptors[1]) { channel in
      channel.eventLoop.makeCompletedFuture {
        try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(Lines()))
        return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
      }
    }
    let maxSize = max(1, options.maxLineBytes)
    try await bridge.executeThenClose { lines, requests in
      try await withThrowingTaskGroup(of: Void.self) { group in
        // The client's messages, one request line each.
        group.addTask {
          for try await message in inbound.messages(maxSize: maxSize) {
            let bytes: ByteBuffer
            switch message {
            case .text(let text): bytes = ByteBuffer(string: text)
            case .binary(let binary): bytes = binary
            }
            guard let line = requestLine(bytes, maxSize: maxSize) else {
              try await outbound.close(.messageTooLarge, reason: "a message is longer than the limit of \(maxSize) bytes")
              return
            }
            try await requests.write(line)
          }
        }
        // The daemon's lines, one message each.
        group.addTask {
          for try await line in lines {
            try await outbound.write(.text(String(buffer: line)))
          }
          // At a hand-over the daemon's end closes: a WebSocket does not go to the next
          // process, so its client is told to come back at once (1012, service restart).
          // The HTTP socket is kept: it reconnects to the next process on the same port,
          // and its watch resumes with `since`.
          if parts.handingOver.load(ordering: .acquiring) {
            try await outbound.close(.unknown(Self.serviceRestart), reason: Self.restartReason)
          } else {
            try await outbound.close(.normalClosure, reason: nil)
          }
        }
        // Whichever side ends first ends the connection.
        try await group.next()
        group.cancelAll()
      }
    }
  }
}
#endif
