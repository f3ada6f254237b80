import ArborJSON
import NIOCore
import Synchronization

/// What reached the end of a pipeline under test, in the order it came.
enum ProbedEvent<Message: Sendable>: Sendable {
  case read(Message)
  /// `ChannelEvent.inputClosed`: the client half-closed.
  case inputClosed
  case inactive
}

/// The last handler of a pipeline under test: records what the handlers before it passed
/// on. Sendable through its lock, so that a test reads it from any thread.
final class InboundRecorder<Message: Sendable>: ChannelInboundHandler, Sendable {
  typealias InboundIn = Message

  private let recorded = Mutex<[ProbedEvent<Message>]>([])

  /// Everything recorded so far.
  var events: [ProbedEvent<Message>] { recorded.withLock { $0 } }

  /// The messages read, without the events.
  var messages: [Message] {
    events.compactMap { event in
      guard case .read(let message) = event else { return nil }
      return message
    }
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let message = unwrapInboundIn(data)
    recorded.withLock { $0.append(.read(message)) }
  }

  func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
    if case ChannelEvent.inputClosed = event { recorded.withLock { $0.append(.inputClosed) } }
    context.fireUserInboundEventTriggered(event)
  }

  func channelInactive(context: ChannelHandlerContext) {
    recorded.withLock { $0.append(.inactive) }
    context.fireChannelInactive()
  }
}

/// The first handler of a pipeline under test, nearest the (absent) socket: counts the
/// reads that the handlers after it let through, which is how a pipeline holds a client
/// back.
final class ReadCounter: ChannelOutboundHandler, Sendable {
  typealias OutboundIn = ByteBuffer

  private let reads = Atomic<Int>(0)

  /// The reads that reached the socket.
  var count: Int { reads.load(ordering: .relaxed) }

  func read(context: ChannelHandlerContext) {
    reads.add(1, ordering: .relaxed)
    context.read()
  }
}

/// The replies a connection wrote, split into lines and parsed.
struct WrittenLines {
  private var pending: [UInt8] = []
  /// Every complete line so far, parsed.
  private(set) var lines: [JSONValue] = []
  /// How many writes carried them.
  private(set) var writes = 0

  /// Adds one write's bytes.
  mutating func append(_ buffer: ByteBuffer) {
    writes += 1
    pending.append(contentsOf: buffer.readableBytesView)
    while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
      let line = Array(pending[..<end])
      pending.removeSubrange(...end)
      lines.append((try? JSONValue(parsing: line)) ?? .string(String(decoding: line, as: UTF8.self)))
    }
  }

  /// The `id` of each reply, in order (-1 for a reply without one, such as a batch's array).
  var ids: [Int64] { lines.map { $0["id"]?.intValue ?? -1 } }
}
