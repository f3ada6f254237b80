import ArborLocking
import Foundation
import NIOCore
import NIOPosix

/// The floor of a request path built on SwiftNIO: a server on a Unix socket that answers
/// every line with one fixed JSON-RPC reply, and does nothing else; and the floor of a
/// fan-out: a line whose method is `state.watch` makes its connection a watcher, and a
/// line whose method is `intent.call` also writes one fixed notification to every watcher
/// (it reads the method where the benchmark's lines have it).
///
/// It runs on the same event loops as the daemon (`MultiThreadedEventLoopGroup.singleton`),
/// reads with NIO's default allocator and writes each reply with `write`, flushing once per
/// read; a notification is one `writeAndFlush` on the watcher's channel, from the loop that
/// read the change. That is less than the daemon does for a reply or a notification, so
/// its instructions, CPU, requests per second and fan-out time are what any NIO-based
/// daemon costs before its own work. `arbor-benchmarks daemon` measures it beside the
/// daemon and Redis in the same run.
///
/// ```sh
/// arbor-benchmarks __line-echo /tmp/echo.sock    # until killed
/// ```
enum LineEchoServer {
  /// The reply to every line.
  static let reply = Array(#"{"jsonrpc":"2.0","id":1,"result":{"revision":1}}"#.utf8) + [0x0A]
  /// The notification every watcher gets for a change.
  static let notification =
    Array(#"{"jsonrpc":"2.0","method":"state.changed","params":{"subscription":1,"revision":2,"patch":[{"op":"replace","path":"","value":2}]}}"#.utf8)
    + [0x0A]

  /// The watchers' channels.
  static let watchers = LockedState<[any Channel]>([])

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

  /// Answers each line, flushing once per read; registers watchers and notifies them of a
  /// change.
  final class LineEcho: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var pending = false
    private static let watch = Array("state.watch".utf8)
    private static let change = Array("intent.call".utf8)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let buffer = unwrapInboundIn(data)
      let (lines, watches, changes) = buffer.withUnsafeReadableBytes { bytes in
        (
          bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, Self.hasMethod(bytes, Self.watch),
          Self.hasMethod(bytes, Self.change)
        )
      }
      if watches { LineEchoServer.watchers.withLock { $0.append(context.channel) } }
      if changes {
        for watcher in LineEchoServer.watchers.withLock({ $0 }) {
          var out = watcher.allocator.buffer(capacity: LineEchoServer.notification.count)
          out.writeBytes(LineEchoServer.notification)
          watcher.writeAndFlush(out, promise: nil)
        }
      }
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

    func channelInactive(context: ChannelHandlerContext) {
      let gone = ObjectIdentifier(context.channel)
      LineEchoServer.watchers.withLock { $0.removeAll { ObjectIdentifier($0) == gone } }
    }

    /// The method of the line at the start of `bytes`, read where the benchmark's lines
    /// spell it (after `{"jsonrpc":"2.0","id":1,"method":"`): the floor understands only
    /// those lines, and finds them in a few comparisons rather than a search.
    private static func hasMethod(_ bytes: UnsafeRawBufferPointer, _ method: [UInt8]) -> Bool {
      let start = methodOffset
      guard bytes.count >= start + method.count else { return false }
      for index in method.indices where bytes[start + index] != method[index] { return false }
      return true
    }

    private static let methodOffset = #"{"jsonrpc":"2.0","id":1,"method":""#.utf8.count
  }
}
