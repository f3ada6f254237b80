import ArborRPC
import Logging
import NIOCore
import NIOPosix

/// A request line parsed, as ``RequestStage`` takes it.
enum InboundLine {
  /// What a line held. `large`: the line was at least ``MemoryTrim/largeBytes``, so the
  /// memory it needed is given back once it is handled; `mark`: the arena its parse used
  /// off the event loop, for that trim.
  case parsed(RPCInbound, large: Bool, mark: ArenaMark?)
  /// A line passed the limit; the client's input ends here.
  case tooLong(limit: Int)
}

/// Parses the connection's lines into ``RPCInbound``s, in order: the second stage of a
/// connection's pipeline, after ``LineDecoder``.
///
/// A line of ``offLoopLineBytes`` or more is parsed on NIO's thread pool (a 10 MiB batch
/// takes about a second to parse in a debug build, 50 ms in a release one), so that the
/// event loop serves its other connections meanwhile. The lines and the end of input that
/// come after it wait here, and reads are held, until it is parsed: the request stage
/// sees everything in the order the client sent it.
final class RPCLineCodec: ChannelDuplexHandler {
  typealias InboundIn = FramedLine
  typealias InboundOut = InboundLine
  typealias OutboundIn = ByteBuffer
  typealias OutboundOut = ByteBuffer

  /// Lines at least this long are parsed off the event loop (64 KiB).
  static let offLoopLineBytes = 64 << 10

  /// What came after a line being parsed off the loop.
  private enum Waiting {
    case line(FramedLine)
    case inputClosed
  }

  private enum State {
    /// Lines are parsed as they come.
    case flowing
    /// A line is being parsed off the loop; `waiting` came after it, and a read was asked
    /// for (`readHeld`) that is made once they have all gone on.
    case parsing(waiting: CircularBuffer<Waiting>, readHeld: Bool)
    /// The connection is gone.
    case ended
  }

  private var state = State.flowing
  /// The connection's logger: a line that is not JSON is described in it at `debug` level.
  private let logger: Logger

  init(logger: Logger) {
    self.logger = logger
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let line = unwrapInboundIn(data)
    switch state {
    case .flowing:
      pass(line, context: context)
    case .parsing(var waiting, let readHeld):
      state = .ended
      waiting.append(.line(line))
      state = .parsing(waiting: waiting, readHeld: readHeld)
    case .ended:
      break
    }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event, case .parsing(var waiting, let readHeld) = state {
      state = .ended
      waiting.append(.inputClosed)
      state = .parsing(waiting: waiting, readHeld: readHeld)
      return
    }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    state = .ended
    context.fireChannelInactive()
  }

  /// Holds reads while a line is parsed off the loop.
  func read(context: ChannelHandlerContext) {
    switch state {
    case .flowing, .ended:
      context.read()
    case .parsing(let waiting, _):
      state = .parsing(waiting: waiting, readHeld: true)
    }
  }

  /// Parses `line` here, or starts its parse off the loop (the state becomes `.parsing`).
  private func pass(_ line: FramedLine, context: ChannelHandlerContext) {
    switch line {
    case .tooLong(let error):
      context.fireChannelRead(wrapInboundOut(.tooLong(limit: error.limit)))
    case .line(let bytes) where bytes.count < Self.offLoopLineBytes:
      let inbound = RPCInbound(line: bytes)
      describeIfUnreadable(inbound, bytes)
      context.fireChannelRead(wrapInboundOut(.parsed(inbound, large: bytes.count >= MemoryTrim.largeBytes, mark: nil)))
    case .line(let bytes):
      state = .parsing(waiting: [], readHeld: false)
      let large = bytes.count >= MemoryTrim.largeBytes
      let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
      NIOThreadPool.singleton.runIfActive(eventLoop: context.eventLoop) {
        (RPCInbound(line: bytes), large ? ArenaMark.here() : nil)
      }.whenComplete { result in
        let (codec, context) = bound.value
        switch result {
        case .success(let (inbound, mark)):
          codec.describeIfUnreadable(inbound, bytes)
          codec.parsed(.parsed(inbound, large: large, mark: mark), context: context)
        case .failure: codec.parsed(.parsed(RPCInbound(line: bytes), large: large, mark: nil), context: context)
        }
      }
    }
  }

  /// A line that is not JSON, described at `debug` level: its length and its first bytes
  /// in hexadecimal, beside the reply's reason, so that an operator can tell a client that
  /// sends garbage from bytes mangled on the way.
  private func describeIfUnreadable(_ inbound: RPCInbound, _ bytes: [UInt8]) {
    guard logger.logLevel <= .debug, case .single(.invalid(let reply)) = inbound, let error = reply.error, error.code == -32700 else { return }
    let first = bytes.prefix(48).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined(separator: " ")
    logger.debug("a line of \(bytes.count) bytes is not JSON (\(error.message)); its first bytes: \(first)")
  }

  /// The line parsed off the loop goes on, then what waited behind it, until another long
  /// line is met or nothing waits.
  private func parsed(_ line: InboundLine, context: ChannelHandlerContext) {
    guard case .parsing(var waiting, let readHeld) = state else { return }
    state = .flowing
    context.fireChannelRead(wrapInboundOut(line))
    while case .flowing = state, let next = waiting.popFirst() {
      switch next {
      case .line(let line): pass(line, context: context)
      case .inputClosed: context.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
      }
    }
    switch state {
    case .parsing(let more, let heldSince):
      // Another long line: what is left waits behind it, with the held read.
      var all = more
      all.append(contentsOf: waiting)
      state = .parsing(waiting: all, readHeld: readHeld || heldSince)
    case .flowing:
      if readHeld { context.read() }
    case .ended:
      break
    }
  }
}
