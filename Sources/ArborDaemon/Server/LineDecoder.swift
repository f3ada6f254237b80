import ArborRPC
import NIOCore

/// A line of the connection as ``LineDecoder`` frames it.
enum FramedLine {
  /// A request line, without its `\n` (or `\r\n`); never only blanks.
  case line([UInt8])
  /// A line passed `--max-line-bytes`: the client's input is ignored from here on.
  case tooLong(LineFramer.LineTooLong)
}

/// Frames the bytes a client sends into request lines: the first stage of a connection's
/// pipeline (see ``RequestStage``).
///
/// Each read goes into a ``LineFramer``, which keeps the partial line and lets go of a
/// large buffer once its line is out, so that a connection that sent one 16 MiB line does
/// not keep 16 MiB for the rest of its life. A line over the limit ends the framing: it is
/// reported once, and every later byte is dropped.
///
/// A plain inbound handler, not a `ByteToMessageHandler`: the framer keeps the partial
/// line itself, so NIO's accumulation buffer and decode loop were a second copy of that
/// work on every read. The end of input (`inputClosed`, `channelInactive`) passes on as it
/// comes: every complete line before it has already gone on, and a partial line is dropped.
final class LineDecoder: ChannelInboundHandler {
  typealias InboundIn = ByteBuffer
  typealias InboundOut = FramedLine

  private enum State {
    case framing(LineFramer)
    /// A line was too long: nothing more is read.
    case discarding
  }

  private var state: State

  init(maxLineLength: Int) {
    state = .framing(LineFramer(maxLineLength: maxLineLength))
  }

  /// What was read but is not a whole line yet: a hand-over passes it to the next process
  /// (``HandOverGate``). Empty once a line too long was refused (nothing more is read).
  var pendingInput: [UInt8] {
    guard case .framing(let framer) = state else { return [] }
    return Array(framer.pendingBytes)
  }

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    let buffer = unwrapInboundIn(data)
    guard case .framing(var framer) = state else { return }
    // The framer is taken out of the state while it is changed, so that it is not copied.
    state = .discarding
    buffer.withUnsafeReadableBytes { framer.append(bytes: $0) }
    do {
      while let line = try framer.takeLine() {
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { continue }
        context.fireChannelRead(wrapInboundOut(.line(line)))
      }
      state = .framing(framer)
    } catch {
      context.fireChannelRead(wrapInboundOut(.tooLong(error)))
    }
  }
}
