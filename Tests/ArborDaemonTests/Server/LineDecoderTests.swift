import NIOCore
import NIOEmbedded
import Testing

@testable import ArborDaemon

/// ``LineDecoder`` alone in an `EmbeddedChannel`: how the bytes a client sends become
/// request lines, however the reads cut them.
@Suite struct LineDecoderTests {
  /// A decoder with a recorder behind it, on a channel of its own.
  private func makeChannel(maxLineLength: Int = 1 << 20) throws -> (EmbeddedChannel, InboundRecorder<FramedLine>) {
    let recorder = InboundRecorder<FramedLine>()
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandlers([LineDecoder(maxLineLength: maxLineLength), recorder])
    return (channel, recorder)
  }

  /// The lines (as text) and the too-long limits the recorder saw, in order.
  private func described(_ recorder: InboundRecorder<FramedLine>) -> [String] {
    recorder.events.map { event in
      switch event {
      case .read(.line(let bytes)): return String(decoding: bytes, as: UTF8.self)
      case .read(.tooLong(let error)): return "tooLong(\(error.limit))"
      case .inputClosed: return "inputClosed"
      case .inactive: return "inactive"
      }
    }
  }

  @Test func aPartialLineWaitsForItsEnd() throws {
    let (channel, recorder) = try makeChannel()
    try channel.writeInbound(ByteBuffer(string: #"{"jsonrpc":"2.0","#))
    #expect(described(recorder).isEmpty)
    try channel.writeInbound(ByteBuffer(string: #""id":1}"#))
    #expect(described(recorder).isEmpty)
    try channel.writeInbound(ByteBuffer(string: "\n"))
    #expect(described(recorder) == [#"{"jsonrpc":"2.0","id":1}"#])
    #expect(try channel.finish().isClean)
  }

  /// The same input cut at every byte gives the same lines as in one read: `\r\n` and
  /// `\n` both end a line, blank lines are skipped.
  @Test func aLineSplitAtEveryByteGivesTheSameLines() throws {
    let text = "{\"a\":1}\r\n  \t\n{\"b\":\"x y\"}\n\n[1,2]\n{\"c\""
    let expected = [#"{"a":1}"#, #"{"b":"x y"}"#, "[1,2]"]
    let (whole, wholeRecorder) = try makeChannel()
    try whole.writeInbound(ByteBuffer(string: text))
    #expect(described(wholeRecorder) == expected)
    let (split, splitRecorder) = try makeChannel()
    for byte in text.utf8 {
      try split.writeInbound(ByteBuffer(bytes: [byte]))
    }
    #expect(described(splitRecorder) == expected)
    // Every cut into two reads, too.
    let bytes = Array(text.utf8)
    for cut in 1..<bytes.count {
      let (channel, recorder) = try makeChannel()
      try channel.writeInbound(ByteBuffer(bytes: bytes[..<cut]))
      try channel.writeInbound(ByteBuffer(bytes: bytes[cut...]))
      #expect(described(recorder) == expected, "cut at \(cut)")
    }
  }

  @Test func severalLinesInOneReadGoOnInOrder() throws {
    let (channel, recorder) = try makeChannel()
    try channel.writeInbound(ByteBuffer(string: "1\n2\n3\n"))
    #expect(described(recorder) == ["1", "2", "3"])
  }

  /// A line past the limit is reported once, as soon as its length passes it (before its
  /// end comes), and nothing the client sends afterwards is read.
  @Test func aLineOverTheLimitEndsTheFraming() throws {
    let (channel, recorder) = try makeChannel(maxLineLength: 16)
    try channel.writeInbound(ByteBuffer(string: "{\"a\":1}\n" + String(repeating: "x", count: 17)))
    #expect(described(recorder) == [#"{"a":1}"#, "tooLong(16)"])
    try channel.writeInbound(ByteBuffer(string: "xx\n{\"b\":2}\n"))
    #expect(described(recorder) == [#"{"a":1}"#, "tooLong(16)"])
  }

  @Test func aLineAtTheLimitIsALine() throws {
    let (channel, recorder) = try makeChannel(maxLineLength: 16)
    let line = String(repeating: "y", count: 16)
    try channel.writeInbound(ByteBuffer(string: line + "\r\n"))
    #expect(described(recorder) == [line])
  }

  /// The end of input passes on after the complete lines; a partial line is dropped.
  @Test func theEndOfInputFollowsTheCompleteLines() throws {
    let (channel, recorder) = try makeChannel()
    try channel.writeInbound(ByteBuffer(string: "1\n2"))
    channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    #expect(described(recorder) == ["1", "inputClosed"])
  }
}
