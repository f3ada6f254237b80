#if HTTP
import NIOCore

extension WebSocketBridge {
  /// A client's message as the request line the daemon reads: its raw line breaks made
  /// blanks, then `\n`. A JSON text holds no raw line break outside its strings and none
  /// inside them (they are escaped), so pretty-printed JSON becomes one line. Nil for a
  /// message longer than `maxSize` (`--max-line-bytes`): the WebSocket is closed with 1009,
  /// as a fragmented one is (a message in one frame is bounded only by the frame limit, at
  /// least 16 KiB).
  ///
  /// ```swift
  /// WebSocketBridge.requestLine(ByteBuffer(string: "{\n}"), maxSize: 100)   // "{ }\n"
  /// ```
  static func requestLine(_ message: ByteBuffer, maxSize: Int) -> ByteBuffer? {
    guard message.readableBytes <= maxSize else { return nil }
    var line = message
    line.withUnsafeMutableReadableBytes { bytes in
      for index in bytes.indices where bytes[index] == UInt8(ascii: "\n") || bytes[index] == UInt8(ascii: "\r") {
        bytes[index] = UInt8(ascii: " ")
      }
    }
    line.writeInteger(UInt8(ascii: "\n"))
    return line
  }

  /// Splits the daemon's output into lines, without their `\n`.
  ///
  /// A line arrives in many reads (a 10 MB reply in hundreds of them): the bytes already
  /// searched are remembered, so that each read is searched once and a line costs time in
  /// proportion to its length, not to its length times its number of reads.
  struct Lines: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    /// How many readable bytes, from the reader index, hold no `\n`.
    private(set) var searched = 0

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
      guard let line = nextLine(in: &buffer) else { return .needMoreData }
      context.fireChannelRead(wrapInboundOut(line))
      return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
      while try decode(context: context, buffer: &buffer) == .continue {}
      return .needMoreData
    }

    /// The next whole line of `buffer`, read out of it; nil when its `\n` has not come yet.
    mutating func nextLine(in buffer: inout ByteBuffer) -> ByteBuffer? {
      let unsearched = buffer.readableBytesView.dropFirst(searched)
      guard let end = unsearched.firstIndex(of: UInt8(ascii: "\n")) else {
        searched = buffer.readableBytes
        return nil
      }
      searched = 0
      let line = buffer.readSlice(length: end - buffer.readerIndex)!
      buffer.moveReaderIndex(forwardBy: 1)
      return line
    }
  }
}
#endif
