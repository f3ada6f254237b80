import NIOCore

/// The buffers a connection's writer gave its channel, kept until the channel has written
/// them to the socket: NIO does not give back what it still buffers, only how many bytes
/// (`bufferedWritableBytes`), and a hand-over passes those bytes on to the next process,
/// which writes them before anything of its own (``OutboxWriter/takeUnwritten()``).
///
/// The buffers share their storage with the channel's copies: keeping one costs a
/// reference, not a copy. The writer lets go of the written ones now and then
/// (``needsTrim``, ``keepLast(_:)``), so a connection keeps at most a few buffers beyond
/// what its channel holds.
///
/// ```swift
/// var unsent = UnsentOutput()
/// unsent.gave(ByteBuffer(string: "{\"id\":1}\n"))
/// unsent.gave(ByteBuffer(string: "{\"id\":2}\n"))
/// unsent.last(4)  // the four bytes the channel has not written: `":2}\n"`
/// ```
struct UnsentOutput {
  private var buffers: [ByteBuffer] = []
  /// The bytes the kept buffers hold.
  private(set) var bytes = 0

  /// How many buffers are kept before the written ones are let go of.
  static let trimCount = 16
  /// How many bytes are kept before the written ones are let go of.
  static let trimBytes = 64 << 10

  /// Keeps a buffer the writer gave the channel.
  mutating func gave(_ buffer: ByteBuffer) {
    guard buffer.readableBytes > 0 else { return }
    buffers.append(buffer)
    bytes += buffer.readableBytes
  }

  /// Enough is kept that the writer should ask the channel what it still buffers and
  /// let go of the rest.
  var needsTrim: Bool { buffers.count >= Self.trimCount || bytes >= Self.trimBytes }

  /// Lets go of every buffer the channel has written whole, given that it still buffers
  /// `pending` bytes: those are the last that were given.
  mutating func keepLast(_ pending: Int) {
    var dropped = 0
    var count = 0
    while count < buffers.count, bytes - dropped - buffers[count].readableBytes >= pending {
      dropped += buffers[count].readableBytes
      count += 1
    }
    // One move of the rest (usually none is left: the channel wrote everything).
    if count == buffers.count { buffers.removeAll(keepingCapacity: true) } else { buffers.removeFirst(count) }
    bytes -= dropped
  }

  /// The last `pending` bytes given, in order; nil when fewer are kept (something was
  /// written to the channel past the writer).
  func last(_ pending: Int) -> [UInt8]? {
    guard pending <= bytes else { return nil }
    var result: [UInt8] = []
    result.reserveCapacity(pending)
    var skip = bytes - pending
    for buffer in buffers {
      let view = buffer.readableBytesView
      if skip >= view.count {
        skip -= view.count
        continue
      }
      result.append(contentsOf: view.dropFirst(skip))
      skip = 0
    }
    return result
  }
}
