import ArborRPC
import Logging
import NIOCore
import NIOEmbedded
import Testing

@testable import ArborDaemon

/// ``RPCLineCodec`` behind a ``LineDecoder``, without a socket: lines parsed in order, a
/// long line parsed off the event loop with what follows it (lines, the end of input, a
/// read) held until it is done.
@Suite struct RPCLineCodecTests {
  /// A line of at least ``RPCLineCodec/offLoopLineBytes``: a request whose one parameter
  /// pads it.
  private static func longRequest(id: Int) -> String {
    let padding = String(repeating: "p", count: RPCLineCodec.offLoopLineBytes)
    return #"{"jsonrpc":"2.0","id":\#(id),"method":"long","params":{"pad":"\#(padding)"}}"#
  }

  private static func request(id: Int, method: String = "short") -> String {
    #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)"}"#
  }

  /// What reached the recorder, as text: a request's method and id, or the kind of line.
  private static func described(_ events: [ProbedEvent<InboundLine>]) -> [String] {
    events.map { event in
      switch event {
      case .read(.parsed(.single(.request(let request)), let large, _)):
        return "\(request.method) \(request.id?.description ?? "-")\(large ? " large" : "")"
      case .read(.parsed(.single(.invalid(let reply)), _, _)): return "invalid \(reply.error?.code ?? 0)"
      case .read(.parsed(.batch(let calls), _, _)): return "batch of \(calls.count)"
      case .read(.tooLong(let limit)): return "tooLong(\(limit))"
      case .inputClosed: return "inputClosed"
      case .inactive: return "inactive"
      }
    }
  }

  /// The read counter, the decoder and the codec, then the recorder, on a channel whose
  /// loop is safe to complete work on from NIO's thread pool.
  private static func makeChannel(maxLineLength: Int = 1 << 24) async throws -> (
    NIOAsyncTestingChannel, InboundRecorder<InboundLine>, ReadCounter
  ) {
    let recorder = InboundRecorder<InboundLine>()
    let reads = ReadCounter()
    let channel = try await NIOAsyncTestingChannel { channel in
      try channel.pipeline.syncOperations.addHandlers([
        reads, LineDecoder(maxLineLength: maxLineLength), RPCLineCodec(logger: Logger(label: "RPCLineCodecTests")), recorder,
      ])
    }
    return (channel, recorder, reads)
  }

  @Test func shortLinesAreParsedOnTheLoopInOrder() async throws {
    let (channel, recorder, _) = try await Self.makeChannel()
    let text = [Self.request(id: 1, method: "a"), "not json", #"[{"jsonrpc":"2.0","id":3,"method":"b"},7]"#, Self.request(id: 4, method: "c")]
    try await channel.writeInbound(ByteBuffer(string: text.joined(separator: "\n") + "\n"))
    // No wait: each was parsed within the read.
    #expect(Self.described(recorder.events) == ["a 1", "invalid -32700", "batch of 2", "c 4"])
  }

  @Test func aLineOverTheLimitBecomesTheLimit() async throws {
    let (channel, recorder, _) = try await Self.makeChannel(maxLineLength: 64)
    try await channel.writeInbound(ByteBuffer(string: Self.request(id: 1) + "\n" + String(repeating: "z", count: 65) + "\n" + Self.request(id: 2) + "\n"))
    #expect(Self.described(recorder.events) == ["short 1", "tooLong(64)"])
  }

  /// A long line, then a short one, the end of input and a read, all in one turn of the
  /// loop: nothing goes on and the read is held while the long line is parsed off the
  /// loop; then the long line, the short one and the end of input go on, in that order,
  /// and the held read is made.
  @Test func aLongLineIsParsedOffTheLoopAndWhatFollowsWaitsInOrder() async throws {
    let (channel, recorder, reads) = try await Self.makeChannel()
    let input = ByteBuffer(string: Self.longRequest(id: 1) + "\n" + Self.request(id: 2) + "\n")
    let seenAtOnce = try await channel.testingEventLoop.executeInContext {
      let pipeline = channel.pipeline.syncOperations
      pipeline.fireChannelRead(NIOAny(input))
      pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
      channel.pipeline.read()
      return (recorder.events.count, reads.count)
    }
    #expect(seenAtOnce == (0, 0))
    try await eventually("the long line and what followed it went on") { recorder.events.count == 3 }
    #expect(Self.described(recorder.events) == ["long 1", "short 2", "inputClosed"])
    #expect(reads.count == 1)
  }

  /// Two long lines with short ones between and after them keep their order: what waited
  /// behind the first waits behind the second, with the read held for both.
  @Test func longLinesOneAfterAnotherKeepTheirOrder() async throws {
    let (channel, recorder, reads) = try await Self.makeChannel()
    let lines = [Self.longRequest(id: 1), Self.request(id: 2), Self.longRequest(id: 3), Self.request(id: 4)]
    let input = ByteBuffer(string: lines.joined(separator: "\n") + "\n")
    try await channel.testingEventLoop.executeInContext {
      channel.pipeline.syncOperations.fireChannelRead(NIOAny(input))
      channel.pipeline.read()
    }
    try await eventually("four lines went on") { recorder.events.count == 4 }
    #expect(Self.described(recorder.events) == ["long 1", "short 2", "long 3", "short 4"])
    #expect(reads.count == 1)
    // Flowing again: a read goes straight through.
    try await channel.testingEventLoop.executeInContext { channel.pipeline.read() }
    #expect(reads.count == 2)
  }

  /// Without a long line, the end of input passes straight on.
  @Test func theEndOfInputPassesOnWhenNothingIsParsed() async throws {
    let (channel, recorder, _) = try await Self.makeChannel()
    try await channel.writeInbound(ByteBuffer(string: Self.request(id: 1) + "\n"))
    try await channel.testingEventLoop.executeInContext {
      channel.pipeline.syncOperations.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
    }
    #expect(Self.described(recorder.events) == ["short 1", "inputClosed"])
  }
}
