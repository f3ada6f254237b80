import ArborLocking
import Foundation
import NIOCore
import NIOPosix

/// The floor of a request path built on SwiftNIO: a server on a Unix socket that answers
/// every line with one fixed JSON-RPC reply, and does nothing else; and the floor of a
/// fan-out: a line whose method is `state.watch` makes its connection a watcher, and a
/// line whose method is `intent.call` also writes one fixed notification to every watcher
/// (it finds each line's `"method":"`, so that any client's lines are understood: ids of
/// any length, members in any order).
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
    /// The start of a line whose end has not been read yet (rarely anything: a short line
    /// nearly always arrives whole).
    private var partial: [UInt8] = []
    private static let watch = Array("state.watch".utf8)
    private static let change = Array("intent.call".utf8)
    private static let methodKey = Array(#""method":""#.utf8)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
      let buffer = unwrapInboundIn(data)
      var lines = 0
      var watches = false
      var changes = false
      buffer.withUnsafeReadableBytes { bytes in
        var start = 0
        for end in 0..<bytes.count where bytes[end] == 0x0A {
          lines += 1
          let method: Method
          if partial.isEmpty {
            method = Self.method(of: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
          } else {
            partial.append(contentsOf: bytes[start..<end])
            method = partial.withUnsafeBytes { Self.method(of: $0) }
            partial.removeAll(keepingCapacity: true)
          }
          watches = watches || method == .watch
          changes = changes || method == .change
          start = end + 1
        }
        if start < bytes.count { partial.append(contentsOf: bytes[start...]) }
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

    /// What the floor does for a line.
    enum Method { case watch, change, other }

    /// The method of one line: the text after its first `"method":"`, wherever the client
    /// put it and whatever its id's length. A search over the line's quotes, not a parse:
    /// the floor understands only the benchmarks' lines, and pays for no more.
    static func method(of line: UnsafeRawBufferPointer) -> Method {
      let key = methodKey
      var index = 0
      while index + key.count <= line.count {
        if line[index] == 0x22, matches(key, in: line, at: index) {
          let start = index + key.count
          if matches(watch, in: line, at: start) { return .watch }
          if matches(change, in: line, at: start) { return .change }
          return .other
        }
        index += 1
      }
      return .other
    }

    private static func matches(_ word: [UInt8], in line: UnsafeRawBufferPointer, at start: Int) -> Bool {
      guard start + word.count <= line.count else { return false }
      for offset in word.indices where line[start + offset] != word[offset] { return false }
      return true
    }
  }
}
