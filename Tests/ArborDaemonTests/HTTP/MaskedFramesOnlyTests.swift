import Logging
import NIOCore
import NIOEmbedded
import NIOWebSocket
import Testing

@testable import ArborDaemon

/// Which client frames fail an inspector WebSocket before they reach swift-websocket
/// (`MaskedFramesOnly`), on an embedded channel: what the `wsmessage` fuzz target found
/// swift-websocket goes on reading after its own close.
@Suite struct MaskedFramesOnlyTests {
  static let mask = WebSocketMaskingKey(arrayLiteral: 1, 2, 3, 4)

  static func frame(_ opcode: WebSocketOpcode, rsv1: Bool = false, masked: Bool = true) -> WebSocketFrame {
    WebSocketFrame(fin: true, rsv1: rsv1, opcode: opcode, maskKey: masked ? mask : nil, data: ByteBuffer(string: "x"))
  }

  @Test func framesOfTheProtocolGoOn() {
    for opcode in [WebSocketOpcode.continuation, .text, .binary, .connectionClose, .ping, .pong] {
      #expect(MaskedFramesOnly.refusal(of: Self.frame(opcode)) == nil, "\(opcode)")
    }
  }

  @Test func aReservedBitOrOpcodeOrNoMaskFailsTheConnection() {
    #expect(MaskedFramesOnly.refusal(of: Self.frame(.text, masked: false)) != nil)
    #expect(MaskedFramesOnly.refusal(of: Self.frame(.text, rsv1: true)) != nil)
    for code in [3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8] {
      #expect(MaskedFramesOnly.refusal(of: Self.frame(WebSocketOpcode(encodedWebSocketOpcode: code)!)) != nil, "opcode \(code)")
    }
  }

  /// The refused frame is answered with a close of 1002, and what follows it is dropped.
  @Test func nothingAfterAReservedOpcodeIsHandedOn() throws {
    let channel = EmbeddedChannel()
    try channel.pipeline.syncOperations.addHandler(MaskedFramesOnly(logger: Logger(label: "test"), peer: "test"))
    try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
    try channel.writeInbound(Self.frame(.text))
    try channel.writeInbound(Self.frame(WebSocketOpcode(encodedWebSocketOpcode: 3)!))
    _ = try? channel.writeInbound(Self.frame(.text))
    #expect(try channel.readInbound(as: WebSocketFrame.self) != nil)
    #expect(try channel.readInbound(as: WebSocketFrame.self) == nil, "a frame after the reserved opcode was handed on")
    var close = try #require(try channel.readOutbound(as: WebSocketFrame.self))
    #expect(close.opcode == .connectionClose)
    #expect(close.data.readInteger(as: UInt16.self) == 1002)
    _ = try? channel.finish()
  }
}
