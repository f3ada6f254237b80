import ArborJSON
import ArborRPC
import Logging
import NIOCore

/// Serves one client: reads request lines, runs them (several at once, up to a limit),
/// and writes replies and notifications from the connection's ``Outbox``.
struct Connection: Sendable {
  private enum Side: Sendable { case reader, writer }

  let id: Int
  let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
  let credentials: PeerCredentials?
  let role: Role?
  let handler: RequestHandler
  let hub: WatchHub
  let options: DaemonOptions
  let logger: Logger

  func serve(register: (Outbox) -> Void = { _ in }) async {
    let outbox = Outbox(watchLimit: max(1, options.watchQueue), byteLimit: max(1, options.maxOutputBytes))
    register(outbox)
    let context = ConnectionContext(id: id, role: role, outbox: outbox)
    defer { hub.removeAll(of: outbox) }
    do {
      try await channel.executeThenClose { inbound, outbound in
        try await withThrowingTaskGroup(of: Side.self) { group in
          group.addTask {
            try await write(from: outbox, to: outbound)
            return .writer
          }
          group.addTask {
            await read(inbound, context: context)
            // The client sent everything it will send. Without watches there is nothing
            // more to wait for once the replies are out; with watches, serve them until
            // it goes (a write fails) or the daemon stops.
            if !hub.hasWatches(of: outbox) { outbox.finish() }
            return .reader
          }
          // Whichever ends first: the writer ends when the outbox closes (too much unread
          // output, or the client went away), and then reading stops too.
          if try await group.next() == .writer {
            group.cancelAll()
          } else {
            _ = try await group.next()
          }
        }
      }
    } catch {
      logger.debug("connection \(id) ended: \(error)")
    }
    outbox.close()
  }

  private func write(from outbox: Outbox, to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>) async throws {
    while let items = await outbox.next() {
      var buffer = ByteBuffer()
      for item in items {
        switch item {
        case .bytes(let bytes, _):
          buffer.writeBytes(bytes)
        case .resync(let subscription):
          if let line = hub.resyncLine(subscription: subscription) { buffer.writeBytes(line) }
        }
      }
      if buffer.readableBytes > 0 {
        try await outbound.write(buffer)
      }
    }
    if outbox.isClosed && !outbox.wasFinished {
      logger.notice("connection \(id) closed: it left more than \(options.maxOutputBytes) bytes of output unread")
    }
  }

  private func read(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, context: ConnectionContext) async {
    var framer = LineFramer(maxLineLength: max(1, options.maxLineBytes))
    let limit = max(1, options.maxInFlight)
    await withTaskGroup(of: Void.self) { requests in
      var running = 0
      do {
        reading: for try await buffer in inbound {
          framer.append(buffer.readableBytesView)
          while let line = try framer.nextLine() {
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
            if running >= limit {
              await requests.next()
              running -= 1
            }
            running += 1
            let bytes = Array(line)
            requests.addTask { await process(bytes, context: context) }
            if context.outbox.isClosed { break reading }
          }
        }
      } catch let error as LineFramer.LineTooLong {
        logger.notice("connection \(id): \(error); closing it")
        await requests.waitForAll()
        context.outbox.send(Self.line(RPCResponse(id: .null, error: ArborErrors.lineTooLong(limit: error.limit))))
        context.outbox.finish()
        return
      } catch {
        logger.debug("connection \(id): reading failed: \(error)")
      }
      await requests.waitForAll()
    }
  }

  private func process(_ line: [UInt8], context: ConnectionContext) async {
    switch RPCInbound(line: line) {
    case .single(.invalid(let reply)):
      context.outbox.send(Self.line(reply))
    case .single(.request(let request)):
      guard let outcome = await handler.handle(request, connection: context, inBatch: false) else { return }
      guard let id = request.id else { return }
      context.outbox.send(Self.line(Self.response(id: id, outcome)))
    case .batch(let calls):
      var replies: [JSONValue] = []
      for call in calls {
        switch call {
        case .invalid(let reply):
          replies.append(reply.json)
        case .request(let request):
          let outcome = await handler.handle(request, connection: context, inBatch: true)
          if let id = request.id, let outcome { replies.append(Self.response(id: id, outcome).json) }
        }
      }
      guard !replies.isEmpty else { return }
      context.outbox.send(JSONValue.array(replies).jsonLine)
    }
  }

  private static func response(id: RPCID, _ outcome: Result<JSONValue, RPCError>) -> RPCResponse {
    switch outcome {
    case .success(let result): return RPCResponse(id: id, result: result)
    case .failure(let error): return RPCResponse(id: id, error: error)
    }
  }

  static func line(_ response: RPCResponse) -> [UInt8] { response.json.jsonLine }
}
