import Foundation
import NIOCore
import NIOPosix

/// The floor of a request path built on SwiftNIO: a server on a Unix socket that answers
/// every line with one fixed JSON-RPC reply, and does nothing else.
///
/// It runs on the same event loops as the daemon (`MultiThreadedEventLoopGroup.singleton`),
/// reads with NIO's default allocator and writes each reply with `write`, flushing once per
/// read: less than the daemon does for a reply, so its instructions, CPU and requests per
/// second are what any NIO-based daemon costs before its own work. `arbor-benchmarks
/// daemon` measures it beside the daemon and Redis in the same run.
///
/// ```sh
/// arbor-benchmarks __line-echo /tmp/echo.sock    # until killed
/// ```
enum LineEchoServer {
  /// The reply to every line.
  static let reply = Array(#"{"jsonrpc":"2.0","id":1,"result":{"revision":1}}"#.utf8) + [0x0A]

  /// Serves `socket` until the process is killed.
  static func serve(at socket: String) throws -> Never {
    try? FileManager.default.removeItem(atPath: socket)
    let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
      .serverChannelOption(.backlog, value: 4096)
      .childChannelInitializer { channel in
        channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(LineEcho()) }
      }
      .bind(unixDomainSocketPath: socket).wait()
    try channel.closeFuture.wait()
    exit(0)
  }

  /// Counts the line ends of each read and writes a reply for each; flushes once per read.
  final class LineEcho: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var pending = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let buffer = unwrapInboundIn(data)
      let lines = buffer.withUnsafeReadableBytes { bytes in bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) } }
      for _ in 0..<lines {
        var out = context.channel.allocator.buffer(capacity: LineEchoServer.reply.count)
        out.writeBytes(LineEchoServer.reply)
        context.write(wrapOutboundOut(out), promise: nil)
        pending = true
      }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
      if pending {
        pending = false
        context.flush()
      }
    }
  }
}
