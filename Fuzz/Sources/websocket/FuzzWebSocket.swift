import FuzzCheck
import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket

// What the inspector's WebSocket does with the bytes a client sends after the upgrade:
// NIO's `WebSocketFrameDecoder` (with the listener's frame limit), `MaskedFramesOnly` right
// after it, NIO's `WebSocketProtocolErrorHandler` (which the upgrader adds), then the UTF-8
// check of a text message (`ByteBuffer.readUTF8ValidatedString`, what Hummingbird's
// WebSocket calls with `validateUTF8: true`: its failure closes with 1007), and the `Lines`
// framer of WebSocketBridge, which splits the daemon's replies.
//
// The input: byte 0 seeds how the stream is cut into reads, byte 1 sets the frame limit
// (below 128: the listener's smallest, 16 KB; else 0 to 127 bytes), the rest is the stream.
//
// Properties, checked against a plain reader of RFC 6455 frames in this file:
// - nothing crashes;
// - the frames handed on are exactly the masked frames before the first unmasked,
//   oversized, malformed control, reserved-bit or reserved-opcode frame, with their payload
//   unmasked, their opcode and fin; however the stream is cut into reads;
// - an unmasked frame closes the connection with 1002 and nothing after it is handed on; a
//   frame longer than the limit with 1009; a fragmented or long control frame, a reserved
//   bit or a reserved opcode with 1002;
// - a text message (text frame and continuations) is refused (1007) exactly when its bytes
//   are not UTF-8, and read as exactly those bytes when they are;
// - `Lines` splits the payloads as a plain split on `\n` does, however they arrive and
//   whether or not the buffer is compacted between reads.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
  let bytes = inputBytes(data, size)
  guard bytes.count >= 2 else { return 0 }
  let seed = bytes[0]
  let maxFrameSize = bytes[1] < 128 ? 1 << 14 : Int(bytes[1] - 128)
  let stream = Array(bytes[2...])
  let expected = referenceFrames(stream, maxFrameSize: maxFrameSize)

  let collector = Collector()
  let channel = EmbeddedChannel()
  do {
    try channel.pipeline.syncOperations.addHandlers([
      ByteToMessageHandler(WebSocketFrameDecoder(maxFrameSize: maxFrameSize)),
      MaskedFramesOnly(logger: Logger(label: "fuzz", factory: { _ in SwiftLogNoOpLogHandler() }), peer: "fuzz"),
      WebSocketProtocolErrorHandler(),
      collector,
    ])
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
  } catch {
    fatalError("the pipeline cannot be set up: \(error)")
  }
  for chunk in chunks(stream, seed: seed) where channel.isActive {
    _ = try? channel.writeInbound(channel.allocator.buffer(bytes: chunk))
  }
  var written: [WebSocketFrame] = []
  while let frame = try? channel.readOutbound(as: WebSocketFrame.self) { written.append(frame) }
  let active = channel.isActive
  _ = try? channel.finish()
  // A close queues the pipeline's teardown on the loop; an embedded loop runs it only when
  // asked (otherwise the channel and its handlers stay, a leak of the harness's own).
  channel.embeddedEventLoop.run()

  let handed = collector.frames.map(ReferenceFrame.init)
  check(
    handed == expected.frames,
    "\(handed.count) frames handed on, the reference reads \(expected.frames.count) (then \(expected.stop)): \(show(stream))")
  let closeCode = written.first.flatMap { frame -> UInt16? in
    guard frame.opcode == .connectionClose else { return nil }
    var data = frame.unmaskedData
    return data.readInteger(as: UInt16.self)
  }
  switch expected.stop {
  case .incomplete:
    check(written.isEmpty && active, "the connection was answered or closed (\(closeCode.map(String.init) ?? "no close")) on frames that are all well-formed: \(show(stream))")
  case .unmasked, .protocolError:
    check(closeCode == 1002, "\(expected.stop) closed with \(closeCode.map(String.init) ?? "no close frame"), not 1002: \(show(stream))")
    check(!active, "\(expected.stop): the connection stays open: \(show(stream))")
  case .tooLarge:
    check(closeCode == 1009, "a frame over \(maxFrameSize) bytes closed with \(closeCode.map(String.init) ?? "no close frame"), not 1009: \(show(stream))")
    check(!active, "a frame over \(maxFrameSize) bytes: the connection stays open: \(show(stream))")
  }

  checkTextMessages(handed)
  checkLines(handed.flatMap(\.payload), seed: seed)
  return 0
}

/// The frames that reach the handler after the checks, and any error that does.
private final class Collector: ChannelInboundHandler {
  typealias InboundIn = WebSocketFrame
  var frames: [WebSocketFrame] = []

  func channelRead(context: ChannelHandlerContext, data: NIOAny) {
    frames.append(unwrapInboundIn(data))
  }

  func errorCaught(context: ChannelHandlerContext, error: any Error) {}
}

/// The stream cut into reads of 1 to 64 bytes (seed 0: one read).
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

// MARK: - A plain reader of RFC 6455 frames (§5.2), with NIO's checks

private struct ReferenceFrame: Equatable {
  var fin: Bool
  var reserved: UInt8
  var opcode: UInt8
  var payload: [UInt8]

  init(fin: Bool, reserved: UInt8, opcode: UInt8, payload: [UInt8]) {
    self.fin = fin
    self.reserved = reserved
    self.opcode = opcode
    self.payload = payload
  }

  init(_ frame: WebSocketFrame) {
    fin = frame.fin
    reserved = frame.reservedBits.rawValue >> 4
    opcode = UInt8(webSocketOpcode: frame.opcode)
    payload = Array(frame.unmaskedData.readableBytesView)
  }
}

private enum Stop: Equatable {
  /// The stream ends within a frame or between frames.
  case incomplete
  case unmasked
  case tooLarge
  case protocolError
}

private func referenceFrames(_ stream: [UInt8], maxFrameSize: Int) -> (frames: [ReferenceFrame], stop: Stop) {
  var frames: [ReferenceFrame] = []
  var index = 0
  func take(_ count: Int) -> ArraySlice<UInt8>? {
    guard stream.count - index >= count else { return nil }
    defer { index += count }
    return stream[index..<index + count]
  }
  func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }
  while true {
    guard let head = take(2) else { return (frames, .incomplete) }
    let first = head.first!, second = head.last!
    let masked = second & 0x80 != 0
    var length = UInt64(second & 0x7F)
    if length == 126 {
      guard let word = take(2) else { return (frames, .incomplete) }
      length = bigEndian(word)
    } else if length == 127 {
      guard let quad = take(8) else { return (frames, .incomplete) }
      length = bigEndian(quad)
      guard length <= UInt64(Int.max) else { return (frames, .tooLarge) }
    }
    if length > UInt64(maxFrameSize) { return (frames, .tooLarge) }
    let control = first & 0x08 != 0
    if control && first & 0x80 == 0 { return (frames, .protocolError) }
    if control && length > 125 { return (frames, .protocolError) }
    var mask: [UInt8] = []
    if masked {
      guard let key = take(4) else { return (frames, .incomplete) }
      mask = Array(key)
    }
    guard let body = take(Int(length)) else { return (frames, .incomplete) }
    guard masked else { return (frames, .unmasked) }
    // Reserved bits (no extension is negotiated) or a reserved opcode fail the connection.
    guard (first >> 4) & 0x07 == 0, [0x0, 0x1, 0x2, 0x8, 0x9, 0xA].contains(first & 0x0F) else { return (frames, .protocolError) }
    let payload = body.enumerated().map { $0.element ^ mask[$0.offset % 4] }
    frames.append(ReferenceFrame(fin: first & 0x80 != 0, reserved: (first >> 4) & 0x07, opcode: first & 0x0F, payload: payload))
  }
}

// MARK: - Text messages and lines

/// Text messages as Hummingbird's WebSocket assembles them (a text frame, then
/// continuations up to a fin); each is refused with 1007 when NIO's UTF-8 reading fails.
private func checkTextMessages(_ frames: [ReferenceFrame]) {
  var message: (text: Bool, bytes: [UInt8])? = nil
  for frame in frames {
    switch frame.opcode {
    case 0x1, 0x2:
      guard message == nil else { return }  // a new message within one: a protocol error
      message = (frame.opcode == 0x1, frame.payload)
    case 0x0:
      guard message != nil else { return }  // a continuation of nothing: a protocol error
      message!.bytes += frame.payload
    default:
      continue  // control frames and reserved opcodes
    }
    guard frame.fin, let complete = message else { continue }
    message = nil
    guard complete.text else { continue }
    var buffer = ByteBuffer(bytes: complete.bytes)
    let read = try? buffer.readUTF8ValidatedString(length: buffer.readableBytes)
    let valid = String(validating: complete.bytes, as: UTF8.self)
    check(
      (read == nil) == (valid == nil),
      "NIO's UTF-8 check \(read == nil ? "refuses (1007)" : "accepts") a message the standard library \(valid == nil ? "refuses" : "accepts"): \(complete.bytes)")
    if let read { check(Array(read.utf8) == complete.bytes, "a text message reads as other bytes: \(show(complete.bytes))") }
  }
}

/// `WebSocketBridge.Lines` against a split on `\n`, fed in reads of 1 to 64 bytes, the
/// buffer compacted between some reads as `ByteToMessageHandler` does.
private func checkLines(_ bytes: [UInt8], seed: UInt8) {
  var expected = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init)
  expected.removeLast()  // what follows the last `\n` is no line yet
  var lines = WebSocketBridge.Lines()
  var buffer = ByteBufferAllocator().buffer(capacity: 0)
  var read: [[UInt8]] = []
  for (number, chunk) in chunks(bytes, seed: seed &+ 1).enumerated() {
    if number % 3 == Int(seed % 3) { buffer.discardReadBytes() }
    buffer.writeBytes(chunk)
    while let line = lines.nextLine(in: &buffer) { read.append(Array(line.readableBytesView)) }
  }
  check(read == expected, "Lines gave \(read.count) lines, the split \(expected.count): \(show(bytes))")
  check(Array(buffer.readableBytesView) == Array(bytes.split(separator: 0x0A, omittingEmptySubsequences: false).last!), "Lines left other bytes than the last line's: \(show(bytes))")
}

/// The namespace of `Lines` (the bridge itself needs Hummingbird's WebSocket).
enum WebSocketBridge {}
