import Dispatch
import FuzzCheck
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
@_spi(WSInternal) import WSCore

// What becomes of an inspector WebSocket's frames once they are read: the daemon's
// `MaskedFramesOnly` (which fails the connection on an unmasked frame, a reserved bit or a
// reserved opcode), then swift-websocket's own handler (WSCore's `WebSocketHandler`, as
// Hummingbird runs it after the upgrade, with the listener's settings: UTF-8 checked, no
// extension) assembles them into messages (text or binary, continuations, interleaved
// pings and pongs, the size limit) over a testing channel; the bridge's code
// (`WebSocketBridge.requestLine`, what `WebSocketBridge.serve` does with each message)
// makes each a request line; the daemon's `LineDecoder` frames those lines as a
// connection's first handler does. The other way, the daemon's output cut into reads goes
// through the bridge's `Lines` framer and out as text messages.
//
// The input: byte 0 picks `--max-line-bytes` (the message limit), byte 1 seeds how the
// daemon's output is cut; then frames, each a head byte (fin, reserved bits, opcode), a
// length byte (255: two more bytes) and the payload, until a head byte 0xFF; what follows
// is the daemon's output. The frames are what reaches WSCore after NIO's decoder and
// `MaskedFramesOnly` (the websocket target fuzzes those): masked, control frames final and
// at most 125 bytes, none over the frame limit. The client's close ends the stream.
//
// Properties, against a plain reading of RFC 6455 messages in this file:
// - nothing crashes or hangs;
// - the daemon reads exactly one line per message, in order, until the first error or
//   close: the message's bytes with each `\r` and `\n` made a blank (a message of blanks
//   only is no request), never split, joined or cut, and never a line too long;
// - a continuation without a message, a new message inside one, a reserved opcode or
//   reserved bits close with 1002 (nothing from a frame of reserved bits or opcode on is
//   read: its close may come before WSCore's for an earlier frame); a text message that is
//   not UTF-8 with 1007; a message longer than the limit, in one frame or many, with 1009;
//   otherwise the server answers the client's close;
// - the daemon's output reaches the client as one text message per line, its bytes
//   exactly, however the output was cut into reads.

private let logger = Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() })
private let limits = [1, 2, 16, 100, 1000, (1 << 14) - 1, 1 << 14, 1 << 24]

private struct Context: WebSocketContext {
  let logger: Logger
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMessages(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  var bytes = inputBytes(data, size)[...]
  guard bytes.count >= 2 else { return 0 }
  let maxSize = limits[Int(bytes.popFirst()!) % limits.count]
  let seed = bytes.popFirst()!
  let frameLimit = max(1 << 14, min(maxSize, 1 << 24))
  var built: [WebSocketFrame] = []
  var closedByClient = false
  while let head = bytes.popFirst(), head != 0xFF {
    var length = Int(bytes.popFirst() ?? 0)
    if length == 255 { length = (Int(bytes.popFirst() ?? 0) << 8 | Int(bytes.popFirst() ?? 0)) % (frameLimit + 1) }
    let opcode = head & 0x0F
    let control = opcode & 0x08 != 0
    if control { length = min(length, 125) }
    let payload = Array(bytes.prefix(length))
    bytes = bytes.dropFirst(length)
    let mask = WebSocketMaskingKey(arrayLiteral: 0x37, 0xFA, 0x21, 0x3D)
    var data = ByteBuffer(bytes: payload)
    data.webSocketMask(mask)
    var frame = WebSocketFrame(
      fin: control || head & 0x80 != 0, opcode: WebSocketOpcode(encodedWebSocketOpcode: opcode)!, maskKey: mask, data: data)
    frame.rsv1 = head & 0x40 != 0
    frame.rsv2 = head & 0x20 != 0
    frame.rsv3 = head & 0x10 != 0
    built.append(frame)
    if opcode == 0x8 {
      closedByClient = true
      break
    }
  }
  if !closedByClient {
    // The client's close, which ends the stream.
    var data = ByteBuffer()
    data.writeInteger(UInt16(1000))
    let mask = WebSocketMaskingKey(arrayLiteral: 1, 2, 3, 4)
    data.webSocketMask(mask)
    built.append(WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: mask, data: data))
  }
  let frames = built
  let output = Array(bytes)
  // `MaskedFramesOnly` fails the connection when a refused frame arrives: nothing from it
  // on reaches WSCore, and its close may go out before WSCore's own (which comes when
  // WSCore reads the frames before it).
  let refused = frames.firstIndex { MaskedFramesOnly.refusal(of: $0) != nil }
  let expected = referenceMessages(Array(frames[..<(refused ?? frames.count)]), maxSize: maxSize)

  let outcome = Outcome()
  let done = DispatchSemaphore(value: 0)
  Task {
    await run(frames: frames, output: output, seed: seed, maxSize: maxSize, frameLimit: frameLimit, into: outcome)
    done.signal()
  }
  done.wait()

  // The daemon's side: the request lines, framed as a connection's first handler does.
  let lines = daemonLines(outcome.requestLines, maxSize: maxSize, seed: seed)
  let wanted = expected.messages.map { message -> [UInt8] in message.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 } }
    .filter { !$0.allSatisfy { $0 == 0x20 || $0 == 0x09 } }
  let context = "limit \(maxSize), frames \(frames.map { "\($0.opcode)\($0.fin ? "" : " (not fin)")\($0.reservedBits.isEmpty ? "" : " (reserved bits)") \($0.unmaskedData.readableBytes)" })"
  check(!lines.tooLong, "the daemon read a line too long: \(context)")
  check(
    lines.lines == wanted,
    "the daemon read \(lines.lines.count) lines, \(wanted.count) messages were sent: \(lines.lines.map { show($0) }) against \(wanted.map { show($0) }); \(context)")

  // What the server wrote: the daemon's lines as text messages, then its close.
  var written = outcome.written[...]
  let replies = referenceLines(output)
  var sent: [[UInt8]] = []
  var message: [UInt8]? = nil
  while let frame = written.first, frame.opcode != .connectionClose {
    written = written.dropFirst()
    switch frame.opcode {
    case .text:
      check(message == nil, "a text message inside another: \(context)")
      message = Array(frame.unmaskedData.readableBytesView)
    case .continuation:
      check(message != nil, "a continuation of nothing written: \(context)")
      message! += Array(frame.unmaskedData.readableBytesView)
    case .pong, .ping:
      continue
    default:
      fatalError("the server wrote a \(frame.opcode) frame: \(context)")
    }
    if frame.fin, let whole = message {
      sent.append(whole)
      message = nil
    }
  }
  let repaired = replies.map { Array(String(decoding: $0, as: UTF8.self).utf8) }
  check(sent == repaired, "the daemon's \(replies.count) lines went out as \(sent.count) messages: \(sent.map { show($0) }) against \(repaired.map { show($0) })")
  let close = written.first.flatMap { frame -> UInt16? in
    var data = frame.unmaskedData
    return data.readInteger(as: UInt16.self)
  }
  switch (expected.stop, refused) {
  case (.error(let code), nil):
    check(close == code, "the server closed with \(close.map(String.init) ?? "nothing"), not \(code): \(context)")
  case (.error(let code), _?):
    check(close == code || close == 1002, "the server closed with \(close.map(String.init) ?? "nothing"), not \(code) or 1002: \(context)")
  case (.closed, _?):
    check(close == 1002, "a refused frame closed with \(close.map(String.init) ?? "nothing"), not 1002: \(context)")
  case (.closed, nil):
    check(written.first?.opcode == .connectionClose, "the server did not answer the client's close: \(context)")
  }
  return 0
}

/// What the server side did.
private final class Outcome: @unchecked Sendable {
  var requestLines: [[UInt8]] = []
  var written: [WebSocketFrame] = []
}

/// Runs WSCore's handler over a testing channel, the bridge's code inside it.
private func run(frames: [WebSocketFrame], output: [UInt8], seed: UInt8, maxSize: Int, frameLimit: Int, into outcome: Outcome) async {
  let channel = NIOAsyncTestingChannel()
  do {
    try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).get()
    // `MaskedFramesOnly` first, as the upgrade puts it right after NIO's frame decoder.
    let asyncChannel = try await channel.eventLoop.submit {
      try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly(logger: logger, peer: "fuzz"))
      return try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel)
    }.get()
    // The daemon's output goes out before the client's frames come in, so that a close
    // cannot cut it short.
    let (repliesWritten, repliesDone) = AsyncStream<Void>.makeStream()
    let configuration = WebSocketHandler.Configuration(
      extensions: [], autoPing: .disabled, closeTimeout: .seconds(5), validateUTF8: true, maxFrameSize: frameLimit)
    let handling = Task {
      try await WebSocketHandler.handle(
        type: .server, configuration: configuration, asyncChannel: asyncChannel, context: Context(logger: logger)
      ) { inbound, outbound, _ in
        // The daemon's output, cut into reads, through the bridge's framer: one text
        // message per line, as the bridge's second task sends them.
        var lines = WebSocketBridge.Lines()
        var buffer = ByteBufferAllocator().buffer(capacity: 0)
        for chunk in chunks(output, seed: seed) {
          buffer.writeBytes(chunk)
          while let line = lines.nextLine(in: &buffer) {
            try await outbound.write(.text(String(buffer: line)))
          }
        }
        repliesDone.finish()
        // The client's messages, as the bridge's first task reads them.
        for try await message in inbound.messages(maxSize: maxSize) {
          let bytes: ByteBuffer
          switch message {
          case .text(let text): bytes = ByteBuffer(string: text)
          case .binary(let binary): bytes = binary
          }
          guard let line = WebSocketBridge.requestLine(bytes, maxSize: maxSize) else {
            try await outbound.close(.messageTooLarge, reason: "a message is longer than the limit of \(maxSize) bytes")
            return
          }
          outcome.requestLines.append(Array(line.readableBytesView))
        }
      }
    }
    for await _ in repliesWritten {}
    for frame in frames {
      do {
        try await channel.writeInbound(frame)
      } catch {
        break
      }
    }
    _ = try? await handling.value
    while let frame = try await channel.readOutbound(as: WebSocketFrame.self) { outcome.written.append(frame) }
    _ = try? await channel.finish()
  } catch {
    fatalError("the testing channel failed: \(error)")
  }
}

/// The daemon's `LineDecoder` on the request lines, in reads the seed cuts.
private func daemonLines(_ requestLines: [[UInt8]], maxSize: Int, seed: UInt8) -> (lines: [[UInt8]], tooLong: Bool) {
  let channel = EmbeddedChannel()
  do {
    try channel.pipeline.syncOperations.addHandler(LineDecoder(maxLineLength: maxSize))
  } catch {
    fatalError("the line decoder cannot be set up: \(error)")
  }
  for chunk in chunks(requestLines.flatMap { $0 }, seed: seed &+ 7) {
    _ = try? channel.writeInbound(channel.allocator.buffer(bytes: chunk))
  }
  var lines: [[UInt8]] = []
  var tooLong = false
  while let framed = try? channel.readInbound(as: FramedLine.self) {
    switch framed {
    case .line(let line): lines.append(line)
    case .tooLong: tooLong = true
    }
  }
  _ = try? channel.finish()
  return (lines, tooLong)
}

/// The bytes cut into reads of 1 to 64 bytes (seed 0: one read).
private func chunks(_ stream: [UInt8], seed: UInt8) -> [ArraySlice<UInt8>] {
  guard seed != 0 else { return [stream[...]] }
  var state = UInt32(seed)
  var result: [ArraySlice<UInt8>] = []
  var start = 0
  while start < stream.count {
    state = state &* 1_103_515_245 &+ 12345
    let length = Int((state >> 16) % 64) + 1
    let end = min(stream.count, start + length)
    result.append(stream[start..<end])
    start = end
  }
  return result
}

/// The daemon's output split on `\n` (what follows the last one is no line yet).
private func referenceLines(_ output: [UInt8]) -> [[UInt8]] {
  Array(output.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init))
}

// MARK: - A plain reading of RFC 6455 messages (§5.4, §5.5, §8.1)

private enum Stop: Equatable {
  /// The client's close ended the stream.
  case closed
  /// The server closes with this code.
  case error(UInt16)
}

private func referenceMessages(_ frames: [WebSocketFrame], maxSize: Int) -> (messages: [[UInt8]], stop: Stop) {
  var messages: [[UInt8]] = []
  var current: (text: Bool, bytes: [UInt8])? = nil
  for frame in frames {
    let payload = Array(frame.unmaskedData.readableBytesView)
    switch frame.opcode {
    case .connectionClose:
      return (messages, .closed)
    case .ping, .pong:
      continue
    case .text, .binary, .continuation:
      guard frame.reservedBits.isEmpty else { return (messages, .error(1002)) }
      if frame.opcode == .continuation {
        guard current != nil else { return (messages, .error(1002)) }
        guard current!.bytes.count + payload.count <= maxSize else { return (messages, .error(1009)) }
        current!.bytes += payload
      } else {
        guard current == nil else { return (messages, .error(1002)) }
        current = (frame.opcode == .text, payload)
      }
    default:
      return (messages, .error(1002))
    }
    guard frame.fin, let message = current else { continue }
    current = nil
    if message.text && String(validating: message.bytes, as: UTF8.self) == nil { return (messages, .error(1007)) }
    guard message.bytes.count <= maxSize else { return (messages, .error(1009)) }
    messages.append(message.bytes)
  }
  return (messages, .closed)
}

/// The namespace of `Lines` and `requestLine` (the bridge itself needs the daemon).
enum WebSocketBridge {}
