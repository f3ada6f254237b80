import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import ArborDaemon

/// ``OutboxWriter`` alone in an `EmbeddedChannel`: what the connection's ``Outbox`` holds
/// goes out in one write per wake-up, only while the socket can take more; a slow reader's
/// replies wait in its outbox, and one that leaves too much unread is closed.
@Suite struct OutboxWriterTests {
  /// A writer on a connected channel, with the registry it enters.
  private struct Writer {
    let channel: EmbeddedChannel
    let writer: OutboxWriter
    let registry: ConnectionRegistry

    var outbox: Outbox { writer.outbox }

    /// Runs what the outbox's wake-ups queued on the loop.
    func run() { channel.embeddedEventLoop.run() }

    /// The writes that reached the socket since the last call, as text.
    func written() throws -> [String] {
      var writes: [String] = []
      while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
        if buffer.readableBytes > 0 { writes.append(String(buffer: buffer)) }
      }
      return writes
    }

    /// The socket fills up (`false`) or drains (`true`).
    func setWritable(_ writable: Bool) {
      channel.isWritable = writable
      channel.pipeline.syncOperations.fireChannelWritabilityChanged()
    }
  }

  private func makeWriter(maxOutputBytes: Int = 1 << 20) throws -> Writer {
    let options = try DaemonOptions.parse(["--max-output-bytes", String(maxOutputBytes)])
    let channel = EmbeddedChannel()
    let registry = ConnectionRegistry()
    let logger = Logger(label: "OutboxWriterTests")
    let writer = OutboxWriter(
      id: 1, eventLoop: channel.embeddedEventLoop, options: options, hub: WatchHub(historyLimit: 10, logger: logger), registry: registry,
      logger: logger)
    try channel.pipeline.syncOperations.addHandler(writer)
    _ = channel.connect(to: try SocketAddress(ipAddress: "127.0.0.1", port: 1))
    return Writer(channel: channel, writer: writer, registry: registry)
  }

  @Test func repliesQueuedTogetherGoOutInOneWrite() throws {
    let writer = try makeWriter()
    #expect(!writer.registry.isEmpty)
    writer.outbox.send(Array("a\n".utf8))
    writer.outbox.send(Array("b\n".utf8))
    writer.outbox.send(Array("c\n".utf8))
    #expect(try writer.written().isEmpty)
    writer.run()
    #expect(try writer.written() == ["a\nb\nc\n"])
  }

  /// A reply already in a buffer goes out as it is, between what was gathered before and
  /// after it.
  @Test func aBufferGoesOutAsItIsInItsPlace() throws {
    let writer = try makeWriter()
    writer.outbox.send(Array("a\n".utf8))
    writer.outbox.send(ByteBuffer(string: "big\n"))
    writer.outbox.send(Array("b\n".utf8))
    writer.run()
    #expect(try writer.written() == ["a\n", "big\n", "b\n"])
  }

  /// A slow reader: while the socket is full nothing is written and the replies wait in
  /// the outbox; when it drains, they all go out in one write.
  @Test func aFullSocketHoldsTheRepliesUntilItDrains() throws {
    let writer = try makeWriter()
    writer.setWritable(false)
    for index in 0..<5 { writer.outbox.send(Array("\(index)\n".utf8)) }
    writer.run()
    #expect(try writer.written().isEmpty)
    #expect(writer.channel.isActive)
    writer.setWritable(true)
    #expect(try writer.written() == ["0\n1\n2\n3\n4\n"])
  }

  /// A reader that leaves more than `--max-output-bytes` unread is closed, though its
  /// socket never drains; what it left is dropped, and the registry forgets it.
  @Test func aReaderThatLeavesTooMuchUnreadIsClosed() throws {
    let writer = try makeWriter(maxOutputBytes: 64)
    writer.setWritable(false)
    writer.outbox.send(Array(repeating: UInt8(ascii: "x"), count: 40) + [0x0A])
    writer.run()
    #expect(writer.channel.isActive)
    writer.outbox.send(Array(repeating: UInt8(ascii: "y"), count: 40) + [0x0A])
    writer.run()
    #expect(!writer.channel.isActive)
    #expect(try writer.written().isEmpty)
    #expect(writer.outbox.isClosed)
    #expect(writer.registry.isEmpty)
  }

  /// A finished outbox is written out, then the connection closes.
  @Test func aFinishedOutboxIsWrittenThenClosed() throws {
    let writer = try makeWriter()
    writer.outbox.send(Array("last\n".utf8))
    writer.outbox.finish()
    writer.run()
    #expect(try writer.written() == ["last\n"])
    #expect(!writer.channel.isActive)
  }

  /// Once the channel is gone, the outbox refuses what comes.
  @Test func theOutboxClosesWithTheChannel() throws {
    let writer = try makeWriter()
    _ = writer.channel.close()
    writer.run()
    #expect(writer.outbox.isClosed)
    #expect(throws: Outbox.Refusal.closed) { try writer.outbox.notify(Array("n\n".utf8), subscription: 1) }
  }
}
